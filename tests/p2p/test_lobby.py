"""Lobby/setup state machine (protocol.md §C2): joins, seat order by public key, unanimous setup
signatures, seed reveals, and what a misbehaving host or joiner causes."""

from __future__ import annotations

import random

import pytest

from p2p import const as C
from p2p.beacon import game_seed
from p2p.identity import Identity
from p2p.join_resend import PROBE_RESEND_S
from p2p.lobby import (ABORTED, STARTED, WAITING, GameStarted, Lobby, LobbyAborted, LobbyPeerMisbehaved,
                       PlayerLeft, PlayerRemoved)
from p2p.wire import MSG_JOIN, MSG_SEED, MSG_PROPOSAL, decode_proposal, open_envelope, pack, seal

from p2p_harness import addr, drain, make_lobbies, pump_lobbies


def test_four_players_start_with_the_same_signed_setup():
    lobbies = make_lobbies(4, options={"target": 20})
    pump_lobbies(lobbies)
    started = []
    for lob in lobbies.values():
        assert lob.phase == STARTED
        evs = [e for e in drain(lob) if isinstance(e, GameStarted)]
        assert len(evs) == 1
        started.append(evs[0])
    assert len({(e.setup_bytes, e.game_seed) for e in started}) == 1
    assert sorted(e.my_seat for e in started) == [0, 1, 2, 3]
    setup = started[0].setup
    keys = [p.public_key for p in setup.players]
    assert keys == sorted(keys)  # seats ordered by Ed25519 public key
    assert setup.options == (("target", 20),)
    # every lobby wrote the same log header (deterministic Ed25519 signatures)
    assert len({lob.log_header() for lob in lobbies.values()}) == 1


def test_seeded_setup_is_reproducible_whatever_the_join_order():
    a = make_lobbies(4, join_order=[1, 2, 3])
    b = make_lobbies(4, join_order=[3, 1, 2])
    pump_lobbies(a)
    pump_lobbies(b, rng=random.Random(5))  # also: setup signatures may overtake the proposal
    sa = {l.setup_bytes for l in a.values()} | {l.setup_bytes for l in b.values()}
    assert len(sa) == 1
    assert {l.game_seed for l in a.values()} == {l.game_seed for l in b.values()}
    assert all(l.phase == STARTED for l in b.values())


def test_game_seed_is_hash_of_reveals_in_seat_order():
    lobbies = make_lobbies(3)
    pump_lobbies(lobbies)
    lob = lobbies[addr(0)]
    secrets = [lob.signing.secret(i) for i in range(3)]
    assert lob.game_seed == game_seed(secrets)


def test_full_lobby_rejects_another_joiner():
    lobbies = make_lobbies(2)
    pump_lobbies(lobbies)
    late = Lobby.join(Identity.from_seed(b"late"), endpoint=addr(9),
                      host_addr=addr(0), game_id=lobbies[addr(0)].game_id,
                      name="late", chain_length=16)
    lobbies[addr(9)] = late
    pump_lobbies(lobbies)
    assert late.phase == ABORTED
    assert any(isinstance(e, LobbyAborted) and "full" in e.reason for e in drain(late))


def test_joiner_can_leave_before_the_setup():
    lobbies = make_lobbies(3, join_order=[1])
    pump_lobbies(lobbies)
    lobbies[addr(1)].leave()
    pump_lobbies(lobbies)
    host = lobbies[addr(0)]
    assert any(isinstance(e, PlayerLeft) and e.name == "p1" for e in drain(host))
    assert host.announcement()["taken"] == "1"


@pytest.mark.parametrize("field, value", [("chain_head", b"\x00" * 32), ("endpoint", ("10.0.0.66", 6002))])
def test_joiner_refuses_a_setup_that_alters_its_entry(field, value):
    """§C2.2 step 4: our entry byte for byte; version 6, §C2.1: its endpoint too (a host naming
    a relay port of its own as ours, so that the others open their channels to us there)."""
    lobbies = make_lobbies(2)
    host, joiner = lobbies[addr(0)], lobbies[addr(1)]
    host.receive_message(joiner.messages_to_send()[0][1], addr(1), 0.0)
    (dst, raw), = [m for m in host.messages_to_send() if open_envelope(m[1]).mtype == MSG_PROPOSAL]
    prop = decode_proposal(open_envelope(raw).body)
    # the host swaps a field of the joiner's entry for one it likes better
    players = tuple(p._replace(**{field: value}) if p.public_key == joiner.me.public_key else p
                    for p in prop.setup.players)
    sb = prop.setup._replace(players=players).encode()
    forged = seal(host.identity, MSG_PROPOSAL, [host.game_id, sb])
    joiner.receive_message(forged, addr(0), 0.0)
    assert joiner.phase == ABORTED
    assert any(isinstance(e, LobbyAborted) and "altered" in e.reason for e in drain(joiner))


def test_seed_reveal_not_matching_commitment_removes_the_seat_with_evidence():
    """§C2.2 steps 6-7 ("A seat that lies", H150): a SEED its seat's own commitment refuses proves
    only that seat lied: the host blames it with the envelope, removes it and opens a new round."""
    lobbies = make_lobbies(2)
    host, joiner = lobbies[addr(0)], lobbies[addr(1)]
    # deliver everything but the joiner's seed reveal, which it replaces by a wrong one
    while True:
        batch = [(s, d, r) for s, l in lobbies.items() for d, r in l.messages_to_send()]
        if not batch:
            break
        for src, dst, raw in batch:
            if src == addr(1) and open_envelope(raw).mtype == MSG_SEED:
                raw = seal(joiner.identity, MSG_SEED, [joiner.game_id, joiner.my_seat, joiner.setup_hash, b"\x07" * 32])
            lobbies[dst].receive_message(raw, src, 0.0)
    assert host.phase == WAITING and host.round == 1
    evs = drain(host)
    assert any(isinstance(e, LobbyPeerMisbehaved) and "commitment" in e.reason for e in evs)
    assert [e.name for e in evs if isinstance(e, PlayerRemoved)] == ["p1"]


def test_wrong_game_and_malformed_bytes_are_dropped_and_counted():
    lobbies = make_lobbies(2)
    host = lobbies[addr(0)]
    other = Lobby.join(Identity.from_seed(b"o"), endpoint=addr(5),
                       host_addr=addr(0), game_id=b"\x01" * 16, name="o", chain_length=16)
    host.receive_message(other.messages_to_send()[0][1], addr(5), 0.0)
    host.receive_message(b"\x93garbage", addr(5), 0.0)
    host.receive_message(pack([MSG_JOIN, b"\x90", b"\x00" * 64]), addr(5), 0.0)  # JOIN body of wrong shape
    assert host.stats["malformed"] == 2
    # Unsigned by anyone we know: counted by reason, nobody blamed (no LobbyPeerMisbehaved).
    assert host.stats["wrong_game"] == 1
    assert not any(isinstance(e, LobbyPeerMisbehaved) for e in drain(host))


def test_forged_join_signature_is_dropped():
    lobbies = make_lobbies(2)
    host = lobbies[addr(0)]
    (_, raw), = lobbies[addr(1)].messages_to_send()
    env = open_envelope(raw)
    forged = pack([env.mtype, env.body, bytes(64)])
    host.receive_message(forged, addr(1), 0.0)
    assert host.phase == "waiting"
    assert host.stats["bad_signature"] == 1
    assert not any(isinstance(e, LobbyPeerMisbehaved) for e in drain(host))


def test_at_setup_timeout_the_host_removes_a_seat_that_never_signs():
    lobbies = make_lobbies(3)
    # the player at addr(2) joins, then goes silent: it never signs the setup
    for _ in range(5):
        for s, l in lobbies.items():
            for d, r in l.messages_to_send():
                if s != addr(2) or open_envelope(r).mtype == MSG_JOIN:
                    lobbies[d].receive_message(r, s, 0.0)
    host = lobbies[addr(0)]
    assert host.phase == "signing"
    fired = 0
    while host.phase == "signing" and fired < 100:  # SETUP_SIG re-sends (H37), then the timeout
        host.handle_timer(host.get_timer())
        fired += 1
    # §C2.2 step 7 (H46): the host does not abort, it removes the silent seat and waits again
    assert host.phase == "waiting" and fired == C.SETUP_TIMEOUT // C.SETUP_RESEND_S
    assert [e.name for e in drain(host) if isinstance(e, PlayerRemoved)] == ["p2"]


def test_joiner_times_out_without_answer():
    lob = Lobby.join(Identity.from_seed(b"j"), endpoint=addr(1),
                     host_addr=addr(0), game_id=b"\x01" * 16, name="j", chain_length=16)
    assert lob.get_timer() == PROBE_RESEND_S  # the JOIN goes out again meanwhile (test_lobby_loss.py)
    lob.handle_timer(C.JOIN_TIMEOUT)
    assert lob.phase == ABORTED


def test_p2p_options_are_validated_and_kept_from_the_engine():
    import pytest
    from p2p.errors import LocalProtocolError
    from p2p.lobby import RESILIENCE_DEFAULTS
    from p2p.wire import engine_options

    ident = Identity.from_seed(b"h")
    for bad in ({"p2p.on_drop": "kick"}, {"p2p.drop_timeout": 0}, {"p2p.other": 1}):
        with pytest.raises(LocalProtocolError):
            Lobby.host(ident, edition="race", seats=2, name="h", endpoint=addr(0), options=bad, chain_length=16)
    lobbies = make_lobbies(2, options=dict(RESILIENCE_DEFAULTS, target=20))
    pump_lobbies(lobbies)
    setup = lobbies[addr(0)].setup
    assert dict(setup.options)["p2p.on_drop"] == "bot" and engine_options(setup) == {"target": 20}
