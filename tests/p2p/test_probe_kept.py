"""A PROBE kept until its address confirms (protocol.md §N3.1, H96): the host keeps the last PROBE
it dropped as unconfirmed, per source address (at most ``PROBE_KEPT`` addresses, none over
``PROBE_KEPT_BYTES``, for ``PROBE_KEEP_S``), and answers it when that address's RESPONSE confirms
the channel (``Endpoint.on_confirm`` -> ``Admission.probe_confirmed``, ``p2p.probe_gate``): a join by code needs
PROBE -> CHALLENGE -> RESPONSE -> STATUS, not a PROBE copy after the RESPONSE (H88: at 30% loss
the copy made joins by code 2.5x slower). A spoofed source never confirms: its PROBE still earns
the CHALLENGE and the owed pure ack only (44 B)."""

from __future__ import annotations

from p2p import const as C, probe_gate
from p2p.datagram import FLAG_DATA, HEADER, MAGIC
from p2p.identity import Identity
from p2p.join_code import join_code_tag
from p2p.lobby import Lobby
from p2p.probe_gate import PROBE_KEEP_S, PROBE_KEPT, PROBE_KEPT_BYTES
from p2p.wire import MSG_STATUS, open_envelope

from redteam_lan_kit import VICTIM, bytes_to
from test_lobby_loss import HOST, LobbyPeer
from test_probe_confirm import HOST_ID, PROBES, _host

JOINER = ("127.0.0.5", 6000)


def _types(out: list) -> list:
    return [(a, open_envelope(raw, C.MAX_LOBBY_MSG).mtype) for a, raw in out]


def test_the_kept_probe_is_answered_at_the_response_without_a_copy():
    """§N3.1: the joiner's one PROBE earns the CHALLENGE; its endpoint's RESPONSE confirms the host's
    channel and, in that same call, the host's lobby answers the kept PROBE: the STATUS goes out
    before the joiner's first copy is due (PROBE_RESEND_S), and the joiner adopts the game."""
    host = LobbyPeer(HOST_ID, _host(), 100)
    ident = Identity.from_seed(b"h96-j")
    joiner = LobbyPeer(ident, Lobby.join(ident, endpoint=JOINER,
                                         host_addr=HOST, game_id=None, name="j", chain_length=8, now=0.0,
                                         code_tag=join_code_tag(host.lobby.game_id, HOST_ID.public_key)), 101)
    now, probes = 0.001, 0

    def hop(src, dst, src_addr, dst_addr):
        nonlocal probes
        out = [d for d, a in src.datagrams_to_send(now) if a == dst_addr]
        for d in out:
            dst.receive_datagram(d, src_addr, now)
        return out

    probes += len(hop(joiner, host, JOINER, HOST))  # the PROBE: dropped as unconfirmed, kept
    assert host.lobby.stats["probe_unconfirmed"] == 1 and not host.ep.confirmed(JOINER)
    assert hop(host, joiner, HOST, JOINER)  # the CHALLENGE
    assert hop(joiner, host, JOINER, HOST)  # the RESPONSE: confirms, the kept PROBE is answered
    assert host.ep.confirmed(JOINER) and host.lobby.stats["probe_kept"] == 1 and host.lobby.stats["probes"] == 1
    assert hop(host, joiner, HOST, JOINER)  # the STATUS
    assert probes == 1 and now < 0.1  # no PROBE copy was needed
    assert joiner.lobby.game_id == host.lobby.game_id and joiner.lobby.admission.code_tag is None


def test_a_spoofed_probe_still_earns_only_the_challenge_and_the_pure_ack():
    """§N3.1 rule 0 with the kept PROBE: a spoofed source never answers the CHALLENGE, so its kept
    PROBE is never answered nor checked: the victim gets 44 B (22 B CHALLENGE + 22 B pure ack) in
    30 s for a 252 B PROBE, no signature is checked, nothing is counted as answered."""
    host = LobbyPeer(HOST_ID, _host(), 6)  # its endpoint calls on_confirm, as a node's does
    host.receive_datagram(HEADER.pack(MAGIC, FLAG_DATA, 0x5EED, 0, 0, 0, 0) + PROBES[0], VICTIM, 0.0)
    lob = host.lobby
    assert bytes_to(host.ep, VICTIM, 30.0, lambda now: host.pump()) == 44 < len(PROBES[0]) + 22
    assert lob.stats["probe_unconfirmed"] == 1
    assert not {"probes", "probe_kept", "bad_signature"} & set(lob.stats)


def test_a_kept_probe_still_goes_through_the_rules():
    """§N3.1: at confirmation the kept PROBE meets rules 1-3 like any confirmed one: a broken
    signature is dropped then (``bad_signature``), a key answered less than PROBE_REPEAT_S ago at
    that address is not answered again there (``probe_repeat``), at another address it is (H94's
    replay: per key and address); a confirmation with nothing kept sends nothing."""
    lob = _host()
    broken = bytearray(PROBES[0])
    broken[-1] ^= 1
    lob.receive_message(bytes(broken), ("10.0.0.9", 5000), 0.0, None, False)
    assert lob.admission.probe_confirmed(("10.0.0.9", 5000), 0.01)
    assert lob.stats["bad_signature"] == 1 and lob.messages_to_send() == []
    lob.receive_message(PROBES[1], ("10.0.0.8", 5000), 0.0, None, True)  # answered now
    lob.receive_message(PROBES[1], ("10.0.0.8", 5000), 0.1, None, False)  # its channel reopened: kept
    assert _types(lob.messages_to_send()) == [(("10.0.0.8", 5000), MSG_STATUS)]
    lob.admission.probe_confirmed(("10.0.0.8", 5000), 0.2)
    assert lob.stats["probe_repeat"] == 1 and lob.messages_to_send() == []
    lob.receive_message(PROBES[1], ("10.0.0.7", 5000), 0.3, None, False)  # the same key elsewhere (H94)
    lob.admission.probe_confirmed(("10.0.0.7", 5000), 0.4)
    assert _types(lob.messages_to_send()) == [(("10.0.0.7", 5000), MSG_STATUS)]
    assert not lob.admission.probe_confirmed(("10.0.0.6", 5000), 0.4)


def test_only_the_last_recent_probe_of_an_address_is_kept():
    """§N3.1: one PROBE per address (a copy replaces it); one older than PROBE_KEEP_S at the
    confirmation is not answered (the joiner stopped or sent a newer one); a confirmed PROBE
    from the address clears it."""
    lob = _host()
    a = ("10.0.0.9", 5000)
    lob.receive_message(PROBES[0], a, 0.0, None, False)
    lob.receive_message(PROBES[1], a, 0.1, None, False)
    lob.admission.probe_confirmed(a, 0.2)
    assert len(lob.messages_to_send()) == 1 and not lob.admission.probe_confirmed(a, 0.2)
    lob.receive_message(PROBES[2], a, 1.0, None, False)
    assert not lob.admission.probe_confirmed(a, 1.0 + PROBE_KEEP_S + 0.01)
    lob.receive_message(PROBES[3], a, 5.0, None, False)
    lob.receive_message(PROBES[3], a, 5.0, None, True)  # answered at once, nothing left kept
    assert len(lob.messages_to_send()) == 1 and not lob.admission.probe_confirmed(a, 5.1)


def test_the_kept_table_is_bounded_in_addresses_and_bytes(monkeypatch):
    """§N3.1: at most PROBE_KEPT addresses, the oldest forgotten (a spoofer cycling sources keeps
    at most that many, never checked); a PROBE over PROBE_KEPT_BYTES is not kept (an honest one,
    name of 32 four-byte characters included, fits)."""
    lob = _host()
    addrs = [("10.1.%d.%d" % (k // 200, k % 200), 5000) for k in range(PROBE_KEPT + 5)]
    for k, a in enumerate(addrs):
        lob.receive_message(PROBES[k % 4], a, 0.0, None, False)
    assert not any(lob.admission.probe_confirmed(a, 0.1) for a in addrs[:5])
    assert all(lob.admission.probe_confirmed(a, 0.1) for a in addrs[5:])
    big = Lobby.join(Identity.from_seed(b"h96-big"), endpoint=("10.2.0.1", 5000),
                     host_addr=HOST, game_id=None, name="\U0001F3B2" * 32,
                     chain_length=8, code_tag=1).messages_to_send()[0][1]
    assert len(PROBES[0]) < len(big) <= PROBE_KEPT_BYTES
    monkeypatch.setattr(probe_gate, "PROBE_KEPT_BYTES", len(big) - 1)
    lob.receive_message(big, ("10.2.0.1", 5000), 0.0, None, False)
    lob.receive_message(PROBES[0], ("10.2.0.2", 5000), 0.0, None, False)
    assert not lob.admission.probe_confirmed(("10.2.0.1", 5000), 0.1)
    assert lob.admission.probe_confirmed(("10.2.0.2", 5000), 0.1)


def test_real_nodes_answer_the_kept_probe_without_any_copy(monkeypatch):
    """The node's wiring (``NodeLobby``: the host's ``Endpoint.on_confirm`` -> the lobby -> the
    socket), on loopback: with the joiner's PROBE copies pushed past JOIN_TIMEOUT, only the kept
    first PROBE, answered at the RESPONSE, can seat the joiner by code; the game ends."""
    import asyncio

    from p2p import join_resend
    from p2p.node import PeerConfig, run_peer
    from ui.progress import progress_json

    monkeypatch.setattr(join_resend, "PROBE_RESEND_S", 2 * C.JOIN_TIMEOUT)
    host_id = Identity.from_seed(b"h96-node-host")

    async def game():
        hosting = asyncio.get_running_loop().create_future()

        def on_progress(report):
            m = progress_json(report)
            if m["type"] == "hosting" and not hosting.done():
                hosting.set_result(m)

        host = asyncio.ensure_future(run_peer(PeerConfig(
            role="host", seats=2, identity=host_id, demo_seed=b"h96-node-0", timeout=60, chain_length=4096,
            progress=on_progress)))
        h = await hosting
        tag = join_code_tag(bytes.fromhex(h["game_id"]), host_id.public_key)
        join = asyncio.ensure_future(run_peer(PeerConfig(
            role="join", demo_seed=b"h96-node-1", host_addr=(h["address"], h["port"]), host_code=tag, timeout=60,
            chain_length=4096)))
        return await asyncio.gather(host, join)

    r_host, r_join = asyncio.run(game())
    assert r_host.final_state_hash == r_join.final_state_hash and r_host.steps == r_join.steps > 0
