"""A player key that derives nothing (protocol.md §C2.2 'Checks', H94's break, H96): a JOIN naming a
low-order X25519 key (all shared secrets zero; ``Identity.x25519_exchange`` refuses it) took a seat,
the game started and every honest seat's session failed to start (its escrows, its niente
deliveries need X25519 with every seat). The host now drops such a new member's JOIN
(``bad_key``, nothing seated, no answer), and a joiner refuses a PROPOSAL that seats one (abort,
evidence: the host signed it). The whole attack on SimNetwork: tests/p2p/test_redteam_s10_xkey.py."""

from __future__ import annotations

from p2p import admission, const as C
from p2p.identity import Identity
from p2p.lobby import ABORTED, Lobby, LobbyPeerMisbehaved
from p2p.wire import MSG_PROPOSAL, open_envelope

from test_lobby_loss import HOST

HOST_ID, HONEST, MALLORY = (Identity.from_seed(b"h96-xk-%s" % n) for n in (b"host", b"j", b"m"))
LOW_ORDER = bytes(32)


def _join(identity: Identity, host: Lobby, xk: bytes | None = None, at: tuple = ("10.0.0.2", 5000)) -> Lobby:
    if xk is not None:
        identity.x25519_public_key = xk  # what its JOIN names (Lobby reads the attribute)
    return Lobby.join(identity, endpoint=at, host_addr=HOST, game_id=host.game_id, name="j", chain_length=8,
                      host_keys=(HOST_ID.public_key, HOST_ID.x25519_public_key))


def test_the_host_drops_a_join_whose_x25519_key_derives_nothing():
    host = Lobby.host(HOST_ID, edition="classico", seats=2, name="host", endpoint=HOST, chain_length=8)
    host.messages_to_send()
    bad = _join(Identity.from_seed(b"h96-xk-bad"), host, LOW_ORDER, ("10.0.0.66", 5000))
    host.receive_message(bad.messages_to_send()[0][1], ("10.0.0.66", 5000), 0.0, None)
    assert host.stats["bad_key"] == 1 and len(host.admission.joined) == 1 and host.messages_to_send() == []
    good = _join(HONEST, host)
    host.receive_message(good.messages_to_send()[0][1], ("10.0.0.2", 5000), 0.0, None)
    assert len(host.admission.joined) == 2  # the seat is still there for an honest joiner


def test_a_joiner_refuses_a_proposal_seating_a_key_that_derives_nothing(monkeypatch):
    """A host that skips the check (here: the check patched out while it seats): the honest
    joiner aborts on its PROPOSAL with evidence, instead of starting a game its session cannot."""
    host = Lobby.host(HOST_ID, edition="classico", seats=3, name="host", endpoint=HOST, chain_length=8)
    host.messages_to_send()
    joiner = _join(HONEST, host)
    monkeypatch.setattr(admission, "xk_usable", lambda identity, xk: True)
    host.receive_message(joiner.messages_to_send()[0][1], ("10.0.0.2", 5000), 0.0, None)
    bad = _join(MALLORY, host, LOW_ORDER, ("10.0.0.66", 5000))
    host.receive_message(bad.messages_to_send()[0][1], ("10.0.0.66", 5000), 0.0, None)
    monkeypatch.undo()
    proposal = next(raw for addr, raw in host.messages_to_send()
                    if addr == ("10.0.0.2", 5000) and open_envelope(raw, C.MAX_LOBBY_MSG).mtype == MSG_PROPOSAL)
    joiner.receive_message(proposal, HOST, 0.1, None)
    assert joiner.phase == ABORTED
    events = []
    while (ev := joiner.next_event()) is not None:
        events.append(ev)
    assert any(isinstance(ev, LobbyPeerMisbehaved) for ev in events)
    assert "derives nothing" in events[-1].reason
