"""Red team, session 9 (H85): join by code (protocol.md §N3.1) against the hostile laptop, with the
session's changes: the joiner's PROBE re-sends (H77, H83) and the host's stranger channels
(§N2.6 'Strangers', 'Reflection').

The joiner by code knows the host's address and a 50-bit tag, nothing else: no key, so its channel
to the host is plain until the host's signed answer names the key. On the host a PROBE seats
nobody: the prober's channel stays a stranger's, which the host evicts when new sources come.
Shared tools: tests/p2p/redteam_s9_kit.py; peers: test_lobby_loss.LobbyPeer.
"""

from __future__ import annotations

import inspect

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from p2p import const as C
from p2p import transport as T
from p2p.endpoint import Endpoint
from p2p.identity import Identity
from p2p.join_code import join_code_tag
from p2p.lobby import ABORTED, WAITING, Lobby
from p2p.wire import MSG_REJECT, MSG_STATUS, open_envelope

from redteam_lan_kit import MALLORY, forge_intro
from redteam_s9_kit import HOST, HOST_ID, JOINER, JOINER_ID, T_JOIN, host_and_joiner, network, spoofed_flood
from test_lobby_loss import LobbyPeer  # a Lobby and its Endpoint pumped as NodeLobby.pump does


def _join_by_code(attackers: dict, schedule=None) -> tuple[LobbyPeer, LobbyPeer]:
    """The attacker's nodes (and ``schedule(net)``'s datagrams) run from 0 s, the honest joiner by
    code from ``T_JOIN``: run until it is seated or gave up (JOIN_TIMEOUT)."""
    hp, jp = host_and_joiner()
    net = network({HOST: hp} | attackers)
    if schedule is not None:
        schedule(net)
    net.run(until=T_JOIN)
    net.attach(JOINER, jp)
    while net.now < T_JOIN + C.JOIN_TIMEOUT + 1.0 and jp.lobby.phase not in (WAITING, ABORTED) and net.step():
        pass
    return hp, jp


def _probe(lob: Lobby, raw: bytes, addr: tuple) -> list[bytes]:
    """``raw`` (a PROBE) to the host lobby ``lob`` from ``addr`` over a confirmed channel (the
    prober answered the CHALLENGE: it is the attacker's own or an honest machine); its answers."""
    if "confirmed" in inspect.signature(lob.receive_message).parameters:  # H83's PROBE rule (§N3.1)
        lob.receive_message(raw, addr, 0.0, None, confirmed=True)
    else:
        lob.receive_message(raw, addr, 0.0, None)
    return [r for _a, r in lob.messages_to_send()]


class Squatter:
    """The attacker's own machine at one of its ports (no spoofing: it receives what is sent
    there): every ``period`` s it sends the host one tiny datagram on a fresh stream, and its
    endpoint answers whatever CHALLENGE comes, so the host's channel to it is confirmed."""

    def __init__(self, i: int, period: float, start: float) -> None:
        self.ep = Endpoint(epoch=900 + i)
        self._period = period
        self._next = start

    def receive_datagram(self, data: bytes, src: tuple, now: float) -> list:
        return self.ep.receive_datagram(data, src, now)

    def datagrams_to_send(self, now: float) -> list:
        return self.ep.datagrams_to_send(now)

    def get_timer(self) -> float | None:
        t = self.ep.get_timer()
        return self._next if t is None else min(t, self._next)

    def handle_timer(self, now: float) -> None:
        if now >= self._next:
            self.ep.forget(HOST)  # the host may have evicted us: start over
            self.ep.send(HOST, b"x")
            self._next = now + self._period
        self.ep.handle_timer(now)


@pytest.mark.parametrize("rate", [300, 3000])
def test_a_flood_of_spoofed_sources_does_not_keep_a_joiner_by_code_out(rate):
    """§N2.6 'Strangers', §N3.1: bare datagrams from fresh spoofed sources (300 or 3,000 a
    second, each opening a stranger channel on the host and evicting another) while an honest
    joiner by code probes: it is seated (its STATUS, then its real JOIN) before JOIN_TIMEOUT."""
    hp, jp = _join_by_code({}, lambda net: spoofed_flood(net, rate, T_JOIN + C.JOIN_TIMEOUT))
    assert hp.ep.stats["evicted"] > 32  # the flood did fill the host's stranger table
    assert jp.lobby.phase == WAITING and [p.name for p, _ in hp.lobby.members()] == ["h", "j"]


def test_an_attackers_own_ports_do_not_keep_a_joiner_by_code_out():
    """§N2.6 'Strangers', §N3.1: the attacker's own machine holds 40 ports; each sends the host a
    23-byte datagram every 0.2 s (200 a second) and answers the CHALLENGEs, so the host's
    stranger table is full of confirmed channels that are heard more recently than an honest
    prober's. The honest joiner by code is still seated before JOIN_TIMEOUT: no answer to its
    PROBE may depend on its stranger channel outliving that churn. Broken by 9b1aa29 (H83: a PROBE
    is answered only over a confirmed channel, and the joiner's was evicted, least recently
    heard, before every copy); fixed by H83: the source host holding the most stranger channels
    gives one up first (§N2.6 'Strangers')."""
    squat = {("10.9.0.66", 20000 + i): Squatter(i, 0.2, i * 0.2 / 40) for i in range(40)}
    hp, jp = _join_by_code(squat)
    assert hp.ep.stats["evicted"] > 40
    assert jp.lobby.phase == WAITING and [p.name for p, _ in hp.lobby.members()] == ["h", "j"]


def test_only_the_game_of_the_code_is_ever_adopted():
    """§N3.1 'What holds': before its real JOIN a joiner by code meets signed STATUSes and
    REJECTs it did not ask for, from the host's address: the same host's other lobby (same key,
    another game id: another tag), a lobby of the attacker's key answering for the real game id,
    and the host's genuine REJECT to another joiner by code. None is adopted; the host's own
    STATUS (the attacker may relay a copy it got by probing the host itself) is, and only it."""
    hp, jp = host_and_joiner()
    j = jp.lobby
    other = Lobby.host(HOST_ID, edition="classico", seats=4, name="h", endpoint=HOST, chain_length=8)
    clone = Lobby.host(Identity.from_seed(b"h85-code-mallory"), edition="classico", seats=4, name="h",
                       endpoint=HOST, chain_length=8)
    clone.game_id = hp.lobby.game_id  # answering for the real game id, with its own key
    full = Lobby.host(HOST_ID, edition="classico", seats=2, name="h", endpoint=HOST, chain_length=8)
    full.game_id = hp.lobby.game_id
    other_joiner = Lobby.join(Identity.from_seed(b"h85-code-other"), endpoint=("10.9.0.3", 5000),
                              host_addr=HOST, game_id=None, name="o",
                              chain_length=8, code_tag=join_code_tag(hp.lobby.game_id, HOST_ID.public_key))
    prober = other_joiner.messages_to_send()[0][1]
    full.phase = "signing"  # closed: a PROBE gets REJECT full naming its key
    seen = [raw for lob in (other, clone, full) for raw in _probe(lob, prober, ("10.9.0.3", 5000))]
    assert [open_envelope(r, C.MAX_LOBBY_MSG).mtype for r in seen] == [MSG_STATUS, MSG_STATUS, MSG_REJECT]
    for raw in seen:
        j.receive_message(raw, HOST, 1.0, None)
    assert j.phase == "joining" and j.admission.code_tag is not None and j.game_id == C.PROBE_GAME_ID
    assert j.stats["not_host"] == 2 and j.stats["not_for_us"] == 1
    (relayed,) = _probe(hp.lobby, prober, ("10.9.0.66", 20000))  # the attacker probes the host itself
    j.receive_message(relayed, HOST, 1.0, None)
    assert j.game_id == hp.lobby.game_id and j.admission.host_keys == (HOST_ID.public_key, HOST_ID.x25519_public_key)


def _a_genuine_reject_naming(join_raw: bytes, game_id: bytes) -> bytes:
    """A REJECT (full) the host really signed for ``game_id``, naming the sender of the JOIN
    ``join_raw``: what the host's lobby answers it once closed."""
    closed = Lobby.host(HOST_ID, edition="classico", seats=2, name="h", endpoint=HOST, chain_length=8)
    closed.game_id = game_id
    closed.phase = "signing"
    closed.receive_message(join_raw, JOINER, 0.0, JOINER_ID.x25519_public_key)
    (reject,) = [r for _a, r in closed.messages_to_send()]
    assert open_envelope(reject, C.MAX_LOBBY_MSG).mtype == MSG_REJECT
    return reject


@pytest.mark.parametrize("by_code", [False, True])
def test_a_genuine_reject_relayed_from_the_hosts_address_never_ends_a_waiting_joiner(by_code):
    """§C2.2 'Checks', §N2.2: a REJECT the host really signed, naming our waiting joiner and its
    game (it would end the joiner: last line), sent to it from the host's address as a plain
    datagram and as an introduction keyed with the attacker's own key (it knows the joiner's
    X25519 key from an earlier game), then every datagram the host sent the joiner replayed: none
    reaches the lobby, because the joiner's channel to the host is keyed with the host's key (since
    the advert, or since the host's STATUS for a joiner by code). The joiner keeps waiting."""
    hp, jp = host_and_joiner()
    if not by_code:
        jp = LobbyPeer(JOINER_ID, Lobby.join(JOINER_ID, endpoint=JOINER,
                                             host_addr=HOST, game_id=hp.lobby.game_id, name="j",
                                             chain_length=8, now=T_JOIN,
                                             host_keys=(HOST_ID.public_key, HOST_ID.x25519_public_key)), 2)
    seen: list[bytes] = []
    send = hp.datagrams_to_send

    def tapped(now: float) -> list:  # the attacker records what the host sends the joiner
        out = send(now)
        seen.extend(d for d, a in out if a == JOINER)
        return out

    hp.datagrams_to_send = tapped
    net = network({HOST: hp, JOINER: jp})
    net.run(until=T_JOIN + 1.0)
    assert jp.lobby.phase == WAITING and seen
    reject = _a_genuine_reject_naming(jp.lobby.admission.join_msg(), hp.lobby.game_id)
    plain = T.HEADER.pack(T.MAGIC, T.FLAG_DATA, 7, 0, 0, 0, 0) + reject
    for data in [plain, *forge_intro(MALLORY, JOINER, JOINER_ID.x25519_public_key, reject), *seen]:
        net.inject(HOST, JOINER, data)
    net.run(until=net.now + 5.0)
    assert jp.lobby.phase == WAITING and jp.aborted is None
    jp.lobby.receive_message(reject, HOST, net.now, HOST_ID.x25519_public_key)
    assert jp.lobby.phase == ABORTED  # had it reached the lobby, it would have ended the join


def test_a_zero_game_id_answer_never_skips_the_code_tag():
    """§N3.1 'What holds': 'anyone else answering at the host's address (or spoofing it) must
    find a key and game id with the same 50-bit tag'. The impostor answers at the host's address
    (ARP spoofing puts it on the path; or it spoofs the host's address to the joiner's port) with
    a lobby of its own key whose game id is the probe's 16 zero bytes: to it the joiner's PROBE is
    a plain JOIN of its game. The joiner must adopt no key and join nothing that does not give the
    code's tag, and keep probing the real host."""
    real = Lobby.host(HOST_ID, edition="classico", seats=2, name="h", endpoint=HOST, chain_length=8)
    j = Lobby.join(JOINER_ID, endpoint=JOINER, host_addr=HOST, game_id=None, name="j", chain_length=8,
                   code_tag=join_code_tag(real.game_id, HOST_ID.public_key))
    impostor = Lobby.host(MALLORY, edition="classico", seats=2, name="h", endpoint=HOST, chain_length=8)
    impostor.game_id = C.PROBE_GAME_ID
    now = 0.0
    for _ in range(4):  # the joiner's PROBE (and what follows) meets the impostor's answers
        for _addr, raw in j.messages_to_send():
            impostor.receive_message(raw, JOINER, now, None)
        for _addr, raw in impostor.messages_to_send():
            j.receive_message(raw, HOST, now, None)
        now += 0.1
    assert j.admission.host_keys is None and j.admission.code_tag is not None
    assert j.phase == "joining" and j.setup is None


def _answers_a_prober_may_meet(real: Lobby) -> list[tuple[str, bytes]]:
    """Signed lobby messages that can reach a joiner by code from the host's address before the
    host's own answer: (who, envelope). ``real`` is the host's lobby (waiting)."""
    prober_id = Identity.from_seed(b"h85-pool-prober")
    tag = join_code_tag(real.game_id, HOST_ID.public_key)
    probe = Lobby.join(prober_id, endpoint=("10.9.0.3", 5000), host_addr=HOST, game_id=None, name="p", chain_length=8,
                       code_tag=tag).messages_to_send()[0][1]
    pool: list[tuple[str, bytes]] = []

    def answers(who: str, lob: Lobby, raw: bytes) -> None:
        pool.extend((who, r) for r in _probe(lob, raw, ("10.9.0.3", 5000)))

    def lobby(key: Identity, gid: bytes | None) -> Lobby:
        lob = Lobby.host(key, edition="classico", seats=2, name="h", endpoint=HOST, chain_length=8)
        if gid is not None:
            lob.game_id = gid
        return lob

    answers("real-host-answer-to-another-prober", real, probe)
    answers("same-key-other-game", lobby(HOST_ID, None), probe)
    for name, gid in (("zero", C.PROBE_GAME_ID), ("real-gid", real.game_id), ("other-gid", None)):
        imp = lobby(MALLORY, gid)
        answers("impostor-" + name, imp, probe)  # a STATUS, or (gid zero) STATUS + PROPOSAL
        joined = Lobby.join(prober_id, endpoint=("10.9.0.3", 5000),
                            host_addr=HOST, game_id=imp.game_id, name="p", chain_length=8)
        answers("impostor-" + name + "-join", imp, joined.messages_to_send()[0][1])
    closed = lobby(HOST_ID, real.game_id)
    closed.phase = "signing"
    answers("real-host-reject-of-another", closed, probe)
    return pool


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 63), max_size=6))
@example([2, 3, 4])  # the impostor with the zero game id: its STATUS, PROPOSAL and SETUP_SIG
def test_no_answer_without_the_codes_tag_moves_a_joiner_by_code(order):
    """§N3.1 'What holds', property: before the host's own answer, a joiner by code meets any
    sequence of signed STATUS, REJECT and PROPOSAL messages from the host's address — the host's
    answers to other probers (a REJECT naming another key), the same key's other lobby, an
    impostor's lobbies (its own key; game id zero, the real one, another) — then the host's own
    STATUS. It never adopts a key but the host's, never leaves probing for another game, and ends
    waiting in the code's game (an answer the host really sent another prober is the real game)."""
    real = Lobby.host(HOST_ID, edition="classico", seats=3, name="h", endpoint=HOST, chain_length=8)
    pool = _answers_a_prober_may_meet(real)
    j = Lobby.join(JOINER_ID, endpoint=JOINER, host_addr=HOST, game_id=None, name="j", chain_length=8,
                   code_tag=join_code_tag(real.game_id, HOST_ID.public_key))
    j.messages_to_send()
    host_keys = (HOST_ID.public_key, HOST_ID.x25519_public_key)
    for i in order:
        j.receive_message(pool[i % len(pool)][1], HOST, 0.0, None)
        assert j.admission.host_keys in (None, host_keys), pool[i % len(pool)][0]
        assert j.game_id in (C.PROBE_GAME_ID, real.game_id) and j.setup is None, pool[i % len(pool)][0]
    if j.admission.code_tag is not None:  # still probing: the host's answer to its PROBE
        (own,) = _probe(real, j.admission.join_msg(), JOINER)
        j.receive_message(own, HOST, 0.1, None)
    for _addr, raw in j.messages_to_send():  # its real JOIN, and the host's STATUS
        for answer in _probe(real, raw, JOINER):
            j.receive_message(answer, HOST, 0.2, None)
    assert j.phase == WAITING and j.game_id == real.game_id and j.admission.host_keys == host_keys
