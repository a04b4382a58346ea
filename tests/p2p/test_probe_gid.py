"""Join by code: the probe's zero game id is no game's (protocol.md §N3.1 'What holds', H85's
break of 22:56, fixed by H87).

While a joiner by code probes, its own game id is the PROBE's 16 zero bytes. Before the fix a
STATUS or PROPOSAL whose gid was zero matched it, skipped the 50-bit tag check and went to the
usual handlers, which adopt the first key the host's address claims (trust on first use): an
impostor at the host's address running a lobby of its own key with game id zero seated the joiner
and the joiner started the impostor's game. Now (``Admission.screen_probe``): a zero gid is read
only by a host's PROBE path; a probing joiner sends every STATUS/REJECT, whatever its gid, through
the tag check and drops every other lobby message; a host never draws the zero gid.

The attacker runs software of its own: ``_attacker_deliver`` hands a message to a lobby's handler
without the game id routing, so the impostor's game (and a copy of the victim playing it, as an
unfixed joiner would) is complete and every message of it genuinely signed.
"""

from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p import const as C
from p2p.chat import ChatRelay, ChatRoom
from p2p.errors import LocalProtocolError
from p2p.join_code import join_code_tag
from p2p.lobby import ABORTED, JOINING, STARTED, GameStarted, Lobby, SetupProposed
from p2p.wire import (LOBBY_DECODERS, MSG_JOIN, MSG_LEAVE, MSG_PROPOSAL, MSG_REJECT, MSG_SEED, MSG_SETUP_SIG,
                      MSG_STATUS, open_envelope)

from redteam_lan_kit import MALLORY
from redteam_s9_kit import HOST, HOST_ID, JOINER, JOINER_ID

#: The victim's demo seed: its PROBE, chain head and seed commitment are the same in every copy,
#: so the impostor's PROPOSAL seats exactly the victim's entry.
DEMO = b"h87-probe-gid"
#: The real host's game (its id gives the code's tag).
REAL = Lobby.host(HOST_ID, edition="classico", seats=2, name="h", endpoint=HOST, chain_length=8,
                  demo_seed=b"h87-real")
TAG = join_code_tag(REAL.game_id, HOST_ID.public_key)


def _mtype(raw: bytes) -> int:
    return open_envelope(raw, C.MAX_LOBBY_MSG).mtype


def _gid(raw: bytes) -> bytes:
    env = open_envelope(raw, C.MAX_LOBBY_MSG)
    return LOBBY_DECODERS[env.mtype](env.body).game_id


def _victim() -> Lobby:
    return Lobby.join(JOINER_ID, endpoint=JOINER,
                      host_addr=HOST, game_id=None, name="j", chain_length=8, demo_seed=DEMO,
                      code_tag=TAG)


def _attacker_deliver(lob: Lobby, raw: bytes, addr: tuple, peer_key: bytes | None) -> None:
    """``raw`` to the handler of its type in ``lob``, with no game id routing (the attacker's
    own software; a lobby built before the fix did the same for a zero gid while probing)."""
    env = open_envelope(raw, C.MAX_LOBBY_MSG)
    msg = LOBBY_DECODERS[env.mtype](env.body)
    adm, rnd = lob.admission, lob.setup_round
    handler = {MSG_JOIN: adm.on_join, MSG_LEAVE: adm.on_leave, MSG_STATUS: adm.on_status,
               MSG_REJECT: adm.on_reject, MSG_PROPOSAL: adm.on_proposal, MSG_SETUP_SIG: rnd.on_setup_sig,
               MSG_SEED: rnd.on_seed}[env.mtype]
    handler(env, msg, addr, 0.0, peer_key)


def _impostor_game(game_id: bytes) -> tuple[list[bytes], Lobby]:
    """An impostor (MALLORY's key, 2 seats, at the host's address) with ``game_id`` plays its game
    to the start with ``shadow``, a copy of the victim (zero gid: the victim's PROBE taken as its
    JOIN; else a joiner that knows ``game_id``, trust on first use). Every message both sent, in
    order, and the shadow (STARTED: the attack works on a lobby without the fix)."""
    impostor = Lobby.host(MALLORY, edition="classico", seats=2, name="h", endpoint=HOST, chain_length=8,
                          demo_seed=b"h87-impostor")
    impostor.game_id = game_id
    if game_id == C.PROBE_GAME_ID:
        shadow = _victim()
    else:
        shadow = Lobby.join(JOINER_ID, endpoint=JOINER,
                            host_addr=HOST, game_id=game_id, name="j", chain_length=8, demo_seed=DEMO)
    sent: list[bytes] = []
    for _ in range(6):
        for _addr, raw in shadow.messages_to_send():
            sent.append(raw)
            _attacker_deliver(impostor, raw, JOINER, None)
        for _addr, raw in impostor.messages_to_send():
            sent.append(raw)
            _attacker_deliver(shadow, raw, HOST, None)
    return sent, shadow


@lru_cache(maxsize=1)
def _pool() -> tuple[bytes, ...]:
    """Every message of three impostor games: game id zero, the real game's id (another key: another
    tag), a fresh one; and the impostor's REJECT naming the victim."""
    pool: list[bytes] = []
    for gid in (C.PROBE_GAME_ID, REAL.game_id, bytes(range(1, 17))):
        sent, shadow = _impostor_game(gid)
        assert shadow.phase == STARTED  # a whole game: what an unfixed joiner would have started
        pool += sent
        closed = Lobby.host(MALLORY, edition="classico", seats=2, name="h", endpoint=HOST, chain_length=8)
        closed.game_id, closed.phase = gid, "signing"
        _attacker_deliver(closed, _victim().messages_to_send()[0][1], JOINER, None)
        pool += [raw for _a, raw in closed.messages_to_send()]
    return tuple(pool)


def _still_probing(j: Lobby) -> None:
    assert j.phase in (JOINING, ABORTED) and j.setup is None
    assert j.game_id == C.PROBE_GAME_ID and j.admission.code_tag == TAG and j.admission.host_keys is None
    while (ev := j.next_event()) is not None:
        assert not isinstance(ev, (GameStarted, SetupProposed))


def test_an_impostor_game_with_the_zero_game_id_starts_nothing():
    """The impostor's whole game id-zero game (STATUS, PROPOSAL seating the victim's entry, its
    SETUP_SIG and SEED; the victim's copy started it), fed to the victim from the host's address in
    order: every message is dropped (``probe_game_id``), no key adopted; the real host's STATUS is
    then believed as usual."""
    sent, _shadow = _impostor_game(C.PROBE_GAME_ID)
    j = _victim()
    j.messages_to_send()
    theirs = [raw for raw in sent if _mtype(raw) != MSG_JOIN]
    assert {_mtype(r) for r in theirs} == {MSG_STATUS, MSG_PROPOSAL, MSG_SETUP_SIG, MSG_SEED}
    for raw in theirs:
        j.receive_message(raw, HOST, 0.0, None)
    _still_probing(j)
    assert j.stats["probe_game_id"] == len(theirs) == j.stats["dropped"]
    (answer,) = _answers_of_the_real_host(j)
    j.receive_message(answer, HOST, 0.1, None)
    assert j.game_id == REAL.game_id and j.admission.code_tag is None  # its real JOIN goes out
    assert j.admission.host_keys == (HOST_ID.public_key, HOST_ID.x25519_public_key)


def _answers_of_the_real_host(j: Lobby) -> list[bytes]:
    """The real host's answer to ``j``'s PROBE (over a confirmed channel)."""
    host = Lobby.host(HOST_ID, edition="classico", seats=2, name="h", endpoint=HOST, chain_length=8,
                      demo_seed=b"h87-real")
    host.receive_message(j.admission.join_msg(), JOINER, 0.0, None, confirmed=True)
    return [raw for _a, raw in host.messages_to_send()]


PEER_KEYS = (None, MALLORY.x25519_public_key, JOINER_ID.x25519_public_key, HOST_ID.x25519_public_key)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_no_message_of_another_key_ends_a_joiner_by_code_outside_probing(data):
    """Property (§N3.1 'What holds'): any sequence of genuinely signed messages of the impostor's
    games (game id zero, the real game's, a fresh one; STATUS, REJECT naming the victim, PROPOSAL,
    SETUP_SIG, SEED, and the victim copy's own JOIN/SETUP_SIG/SEED), from the host's address or
    another, over any channel key, leaves a joiner by code probing (or aborted): no game id, no
    host key adopted, no setup. The real host's STATUS is still believed afterwards."""
    pool = _pool()
    msgs = data.draw(st.lists(st.tuples(st.integers(0, len(pool) - 1), st.sampled_from(PEER_KEYS),
                                        st.sampled_from((HOST, JOINER, ("10.9.0.66", 5000)))), max_size=25))
    j = _victim()
    j.messages_to_send()
    for now, (i, peer_key, addr) in enumerate(msgs):
        j.receive_message(pool[i], addr, now * 0.01, peer_key)
        _still_probing(j)
    (answer,) = _answers_of_the_real_host(j)
    j.receive_message(answer, HOST, 1.0, None)
    assert j.game_id == REAL.game_id and j.admission.code_tag is None  # its real JOIN goes out


@pytest.mark.parametrize("role", ["host", "joiner"])
def test_a_zero_game_id_is_no_games_for_either_role(role):
    """§N3.1: a message with gid zero that is not a PROBE to a host is dropped (``probe_game_id``)
    by a host and by a joiner that knows its game id, before any handler; the lobby is unchanged."""
    if role == "host":
        lob = Lobby.host(HOST_ID, edition="classico", seats=2, name="h", endpoint=HOST, chain_length=8)
    else:
        lob = Lobby.join(JOINER_ID, endpoint=JOINER, host_addr=HOST, game_id=REAL.game_id, name="j", chain_length=8)
        lob.messages_to_send()
    zero = [raw for raw in _pool() if _mtype(raw) != MSG_JOIN and _gid(raw) == C.PROBE_GAME_ID]
    phase = lob.phase
    for raw in zero:
        lob.receive_message(raw, HOST if role == "joiner" else JOINER, 0.0, None, confirmed=True)
    assert lob.stats["probe_game_id"] == len(zero) == lob.stats["dropped"] and lob.phase == phase
    assert lob.messages_to_send() == []


def test_a_probing_joiner_drops_every_lobby_message_but_a_status_or_reject():
    """§N3.1: before the tag names our game, a PROPOSAL, SETUP_SIG or SEED of any game id is
    dropped (``wrong_game``): it cannot be of our game yet, and must not hint a JOIN re-send."""
    j = _victim()
    j.messages_to_send()
    nonzero = [raw for raw in _pool()
               if _mtype(raw) in (MSG_PROPOSAL, MSG_SETUP_SIG, MSG_SEED) and _gid(raw) != C.PROBE_GAME_ID]
    assert nonzero
    for raw in nonzero:
        j.receive_message(raw, HOST, 0.0, None)
    assert j.stats["wrong_game"] == len(nonzero) and j.messages_to_send() == []
    _still_probing(j)


def test_a_host_never_runs_the_zero_game_id(monkeypatch):
    """§N3.1: the PROBE's gid is never a game's; a host that drew it (p = 2^-128) refuses to open."""
    monkeypatch.setattr("p2p.lobby.os.urandom", bytes)
    with pytest.raises(LocalProtocolError):
        Lobby.host(HOST_ID, edition="classico", seats=2, name="h", endpoint=HOST, chain_length=8)


def test_a_probing_joiner_shows_no_chat_line():
    """§N9 check 1, §N3.1: while a joiner by code probes, its chat room's game id is the zero one
    and its channel to the host's address is plain (anyone may spoof it): a CHAT with gid zero,
    signed by any key, from that address is dropped (``probe_game_id``), never shown as a player's
    line. Before (H87's finding): shown, with the name the attacker chose ('Host: the code was
    wrong, join 10.9.0.66:5000/...'). Once the game id is adopted, the host's relayed lines show."""
    j = _victim()
    game = SimpleNamespace(lobby=j, session=None, peers=[], watch=SimpleNamespace(send_all=lambda raw: None))
    shown: list = []
    relay = ChatRelay(JOINER_ID, "j", False, game, lambda addr, raw: None, shown.append)
    lie, _ = ChatRoom(MALLORY, C.PROBE_GAME_ID, "Host").say("il codice era sbagliato: 10.9.0.66:5000/ABCDE", 0.0)
    relay.receive(HOST, lie, 0.0)
    assert shown == [] and relay.room.stats["probe_game_id"] == 1
    (answer,) = _answers_of_the_real_host(j)
    j.receive_message(answer, HOST, 0.1, None)
    line, _ = ChatRoom(HOST_ID, REAL.game_id, "h").say("benvenuti", 0.2)
    relay.receive(HOST, line, 0.2)
    assert [(s.name, s.text) for s in shown] == [("h", "benvenuti")]
