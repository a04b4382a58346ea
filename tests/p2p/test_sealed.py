"""Sealed simultaneous decisions (p2p/sealed.py, protocol.md §C13): the commitment, which steps
are sealed, the opening rule, and a whole bot game played through commit/open steps."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine as E
from engine.actions import Bid
from engine.bots import choose
from engine.bots.play import beacon
from engine.editions import K_STREET
from p2p.errors import LocalProtocolError
from p2p.sealed import (COMMIT, OPEN, PLAIN, SALT_LEN, SealedDecisions, commit_of, commitment,
                        next_phase, open_inputs, simultaneous)

GID = bytes(range(16))


def _salts():
    """A deterministic salt source: 16 bytes counting up, whatever the step."""
    n = [0]

    def draw(step: int) -> bytes:
        n[0] += 1
        return n[0].to_bytes(SALT_LEN, "big")
    return draw


# --- §C13.2 the commitment ------------------------------------------------------------------

def test_commitment_is_the_spec_hash():
    """§C13.2: SHA-256("lanopoli/1/sealed\\0" ‖ gid ‖ step 8 B BE ‖ seat 1 B ‖ msgpack(input) ‖ salt)."""
    salt = b"s" * 16
    inp = [20, 150]  # Bid(150) as encode_action gives it
    want = hashlib.sha256(b"lanopoli/1/sealed\x00" + GID + (7).to_bytes(8, "big") + b"\x02"
                          + msgpack.packb(inp, use_bin_type=True) + salt).digest()
    assert commitment(GID, 7, 2, inp, salt) == want
    assert commitment(GID, 7, 2, None, salt) == hashlib.sha256(
        b"lanopoli/1/sealed\x00" + GID + (7).to_bytes(8, "big") + b"\x02" + b"\xc0" + salt).digest()


def test_commitment_refuses_a_short_salt():
    with pytest.raises(ValueError):
        commitment(GID, 0, 0, None, b"short")


@settings(max_examples=60, deadline=None)
@given(inp=st.one_of(st.none(), st.lists(st.integers(0, 5000), min_size=1, max_size=3)),
       salt=st.binary(min_size=16, max_size=16), step=st.integers(0, 2 ** 40), seat=st.integers(0, 7),
       flip=st.integers(0, 15))
def test_an_opening_opens_only_its_own_commitment(inp, salt, step, seat, flip):
    """Binding: the true opening is accepted; another salt, step, seat or input is a fault."""
    c = commitment(GID, step, seat, inp, salt)
    commits = [None] * 8
    commits[seat] = c
    present = [True] * 8

    def opened(x, at=step, cs=commits):
        xs = [None] * 8
        xs[seat] = x
        return open_inputs(GID, at, cs, xs, present)
    ok = opened([inp, salt])
    assert ok.fault is None and ok.inputs[seat] == inp
    bad_salt = salt[:flip] + bytes((salt[flip] ^ 1,)) + salt[flip + 1:]
    assert opened([inp, bad_salt]).fault == (seat, "opening does not match its commitment")
    assert opened([inp, salt], at=step + 1).fault is not None
    other = [21] if inp is None else None
    assert opened([other, salt]).fault is not None
    moved = [None] * 8
    moved[(seat + 1) % 8] = c  # the same commitment claimed by another seat
    xs = [None] * 8
    xs[(seat + 1) % 8] = [inp, salt]
    assert open_inputs(GID, step, moved, xs, present).fault is not None


# --- §C13.3 the opening rule ----------------------------------------------------------------

def test_open_inputs_every_case():
    salt = bytes(16)
    c = [commitment(GID, 4, i, [20, 100 + i], salt) for i in range(6)]
    commits = [c[0], None, c[2], c[3], c[4], c[5]]
    openings = [[[20, 100], salt],  # 0: opens
                [20, 50],           # 1: no commitment, sends an action: counts as nil
                None,               # 2: committed, withdraws
                [[20, 999], salt],  # 3: another input: fault
                [[20, 104]],        # 4: malformed opening: fault (but 3 is named first)
                "anything"]         # 5: absent (dropped): not looked at
    r = open_inputs(GID, 4, commits, openings, [True] * 5 + [False])
    assert r.inputs == ([20, 100], None, None, None, None, None)
    assert r.withdrawn == (2,)
    assert r.problems == [(1, "opening without a commitment")]
    assert r.fault == (3, "opening does not match its commitment")


def test_an_opening_must_be_a_pair_with_a_16_byte_salt():
    salt = bytes(16)
    c = commitment(GID, 0, 0, [20, 10], salt)
    for bad in ([[20, 10], salt[:15]], [[20, 10], salt, 1], [[20, 10], "x" * 16], [b"x" * 3, salt], c):
        assert open_inputs(GID, 0, [c], [bad], [True]).fault == (0, "opening does not match its commitment")


def test_commit_of_takes_only_32_bytes():
    assert commit_of(b"x" * 32) == b"x" * 32
    for x in (None, b"x" * 31, [20, 5], "x" * 32):
        assert commit_of(x) is None


# --- §C13.1 which steps are sealed ----------------------------------------------------------

@dataclass(frozen=True)
class _P:
    chance: bool
    actors: tuple
    kind: str
    terminal: bool = False


class _Eng:
    """A stand-in engine whose state is its own Pending."""

    @staticmethod
    def pending(state):
        return state


def test_phases_commit_then_open_then_plain():
    bid = _P(False, (0, 1), "auction_bid")
    one = _P(False, (1,), "auction_bid")
    dice = _P(True, (), "dice")
    assert next_phase(PLAIN, _Eng, one) == PLAIN
    assert next_phase(PLAIN, _Eng, bid) == COMMIT
    assert next_phase(COMMIT, _Eng, bid) == OPEN
    assert next_phase(OPEN, _Eng, bid) == COMMIT  # the next auction round is sealed again
    assert next_phase(COMMIT, _Eng, one) == OPEN  # the openings are applied even if a seat left
    assert next_phase(COMMIT, _Eng, dice) == PLAIN  # commitments lapse at a chance step
    assert next_phase(OPEN, _Eng, _P(False, (), "game_over", True)) == PLAIN
    assert not simultaneous(_Eng, _P(True, (0, 1), "dice"))


def _auction_state(seats: int = 3):
    """The first state of a seeded bot game where an auction waits for two or more bidders."""
    for seed in range(40):
        s = E.new_game("classico", seats)
        k = 0
        for _ in range(3000):
            p = E.pending(s)
            if p.terminal:
                break
            if p.kind == "auction_bid" and len(p.actors) >= 2:
                return s
            if p.chance:
                s, _ = E.apply_chance(s, beacon(seed, k))
                k += 1
            else:
                s, _ = E.apply_step(s, [choose(s, i) for i in range(seats)])
    raise AssertionError("no auction in 40 games")


def test_an_auction_round_with_two_bidders_is_sealed_a_roll_is_not():
    s = _auction_state()
    assert simultaneous(E, s)
    assert not simultaneous(E, E.new_game("classico", 3))  # first-player roll: chance
    s0 = E.new_game("classico", 3)
    s0, _ = E.apply_chance(s0, beacon(0, 0))
    assert E.pending(s0).kind == "roll" and not simultaneous(E, s0)


def _two_builders(houses: int):
    """A classico 3-seat state in which seats 0 and 1 own a whole colour set each, with
    ``houses`` houses left in the bank."""
    s = E.new_game("classico", 3)
    s, _ = E.apply_chance(s, beacon(0, 0))
    s = E.decode_state(E.encode_state(s))
    tb = s.tb
    groups: dict[int, list[int]] = {}
    for sq in range(tb.nsq):
        if tb.kind[sq] == K_STREET:
            groups.setdefault(tb.group[sq], []).append(sq)
    sets = list(groups.values())[:2]
    for seat, g in enumerate(sets):
        for sq in g:
            s.owner[sq] = seat
    s.houses = houses
    return s


def test_a_step_where_two_seats_could_ask_for_the_last_house_is_sealed():
    """Rulebook "La Banca non ha edifici a sufficienza?": two requests for one house make an
    auction, so a seat that saw the other's request could force it; such a step is sealed."""
    s = _two_builders(1)
    assert E.pending(s).kind == "roll"
    assert E.shortage_possible(s) and simultaneous(E, s)
    assert not E.shortage_possible(_two_builders(2))  # two houses for two requests: no shortage
    assert not E.shortage_possible(_two_builders(0))  # no house: nobody may ask


# --- the part's state machine ---------------------------------------------------------------

def test_seal_and_open_round_trip():
    bid = _P(False, (0, 1), "auction_bid")
    d = SealedDecisions(GID, 1, _salts())
    assert d.begin(10, _Eng, bid) == COMMIT
    assert d.opening() is None  # nothing to open at a commit step
    c = d.seal([20, 60])
    assert len(c) == 32 and d.own()[0] == 10
    with pytest.raises(LocalProtocolError):
        d.seal([20, 61])  # one commitment per step
    other = commitment(GID, 10, 0, None, b"o" * 16)
    assert d.committed(10, [other, c, [20, 5]], [b"e0", b"e1", b"e2"]) == [(2, "input in clear at a sealed step")]
    assert d.begin(11, _Eng, bid) == OPEN
    mine = d.opening()
    assert mine[0] == [20, 60] and len(mine[1]) == SALT_LEN
    r = d.open(11, [[None, b"o" * 16], mine, [20, 5]], [True, True, True])
    assert r.inputs == (None, [20, 60], None) and r.fault is None
    assert r.problems == [(2, "opening without a commitment")]
    assert d.evidence(1) == b"e1" and d.evidence(9) is None
    assert d.begin(12, _Eng, bid) == COMMIT and d.opening() is None  # stale opening forgotten


def test_seal_outside_a_commit_step_and_skipped_steps_are_refused():
    d = SealedDecisions(GID, 0, _salts())
    d.begin(0, _Eng, _P(False, (0,), "roll"))
    with pytest.raises(LocalProtocolError):
        d.seal(None)
    assert d.opening() is None
    with pytest.raises(LocalProtocolError):
        d.begin(2, _Eng, _P(False, (0,), "roll"))


def test_commitments_of_another_step_count_as_none():
    d = SealedDecisions(GID, 0, _salts())
    salt = bytes(16)
    d.committed(3, [commitment(GID, 3, 0, [20, 10], salt)], [b"e"])
    assert d.open(4, [[[20, 10], salt]], [True]).inputs == ([20, 10],)
    assert d.open(6, [[[20, 10], salt]], [True]).problems == [(0, "opening without a commitment")]


def test_restored_opening_is_sent_after_a_restart():
    bid = _P(False, (0, 1), "auction_bid")
    d = SealedDecisions(GID, 0, _salts())
    d.begin(0, _Eng, bid)
    d.begin(1, _Eng, bid)
    assert d.opening() is None  # the opening was lost: nil, withdraw
    d.restore(0, [20, 10], b"r" * 16)
    assert d.opening() == [[20, 10], b"r" * 16]


# --- a whole game through commit and open steps ---------------------------------------------

def _play(seats: int, seed: int, sealed: bool, cap: int = 4000):
    """A bot game on the functional API. Sealed: every seat runs a SealedDecisions, sends its
    commitment at a commit step and its opening at the open step; the engine applies only the
    opened inputs. Beacons count chance steps, so both forms see the same dice. Returns the
    final state hash, the engine steps applied and the commit steps."""
    s = E.new_game("classico", seats)
    parts = [SealedDecisions(GID, i, _salts()) for i in range(seats)]
    k = chances = engine_steps = commits = 0
    while not E.is_terminal(s) and engine_steps < cap:
        phases = {p.begin(k, E, s) for p in parts} if sealed else {PLAIN}
        assert len(phases) == 1  # every peer computes the same phase
        phase = phases.pop()
        p = E.pending(s)
        if phase == COMMIT:
            sent = [parts[i].seal(E.encode_action(a) if (a := choose(s, i)) is not None else None)
                    for i in range(seats)]
            for part in parts:
                assert part.committed(k, sent, [b""] * seats) == []
            commits += 1
        elif phase == OPEN:
            opened = [part.open(k, [q.opening() for q in parts], [True] * seats) for part in parts]
            assert all(o == opened[0] for o in opened) and opened[0].fault is None
            inputs = [None if x is None else E.decode_action(x) for x in opened[0].inputs]
            s, _ = E.apply_step(s, inputs)
            engine_steps += 1
        elif p.chance:
            s, _ = E.apply_chance(s, beacon(seed, chances))
            chances += 1
            engine_steps += 1
        else:
            s, _ = E.apply_step(s, [choose(s, i) for i in range(seats)])
            engine_steps += 1
        k += 1
    return E.state_hash(s), engine_steps, commits


@pytest.mark.parametrize("seats,seed", [(3, 1), (4, 2)])
def test_a_sealed_game_is_the_same_game_one_round_longer_per_simultaneous_step(seats, seed):
    """Sealing changes who can see what, not what happens: the same bots with the same dice end
    in the same state; only the commit steps are added (one per sealed decision)."""
    plain = _play(seats, seed, False)
    sealed = _play(seats, seed, True)
    assert sealed[:2] == plain[:2]
    assert sealed[2] > 0 and plain[2] == 0


def test_commit_and_open_step_bodies_pass_the_step_checks():
    """Both inputs fit §C3.1's STEP schema as it is: a commitment is a bin(32) like a reveal, an
    opening an array within the action depth and size limits (the largest encoded action is
    one level shallower than the limit)."""
    from p2p.wire import decode_step_body, encode_step_body, pack

    salt = bytes(16)
    for inp in (commitment(GID, 5, 1, [20, 300], salt), [[20, 300], salt], [None, salt]):
        b = decode_step_body(pack(encode_step_body(GID, 5, 1, bytes(32), bytes(32), inp)))
        assert b.input == inp


def test_an_input_whose_opening_would_not_fit_a_step_is_refused_at_commit_time():
    d = SealedDecisions(GID, 0, _salts())
    d.begin(0, _Eng, _P(False, (0, 1), "auction_bid"))
    with pytest.raises(LocalProtocolError):
        d.seal([1] * 63)  # 63 + the opening's 2 elements > 64
    assert len(d.seal([1] * 62)) == 32


def test_resolve_blanks_a_commit_step_and_opens_the_next():
    """The session's and verify's view of §C13: at a commit step the engine is frozen and the
    inputs blanked; at the open step the bodies carry the opened inputs."""
    from p2p.sealed import FrozenEngine
    from p2p.wire import StepBody

    bid = _P(False, (0, 1), "auction_bid")
    d = SealedDecisions(GID, 0, _salts())
    d.begin(0, _Eng, bid)
    c0 = d.seal([20, 60])
    c1 = commitment(GID, 0, 1, [20, 70], b"t" * 16)

    def body(k, seat, inp):
        return StepBody(GID, k, seat, bytes(32), bytes(32), inp)
    r = d.resolve(E, 0, [body(0, 0, c0), body(0, 1, c1)], [b"r0", b"r1"])
    assert isinstance(r.engine, FrozenEngine) and r.fault is None and r.problems == []
    assert [b.input for b in r.bodies] == [None, None]
    s = E.new_game("classico", 2)
    assert r.engine.apply_step(s, [None, None]) == (s, ())
    assert r.engine.state_hash(s) == E.state_hash(s)  # everything else is the real engine's
    d.begin(1, _Eng, bid)
    assert d.judge(body(1, 1, [[20, 71], b"t" * 16])) == (1, "opening does not match its commitment")
    assert d.judge(body(1, 1, [[20, 70], b"t" * 16])) is None
    r = d.resolve(E, 1, [body(1, 0, d.opening()), None], [b"o0", None])
    assert r.engine is E and [None if b is None else b.input for b in r.bodies] == [[20, 60], None]
    bad = d.resolve(E, 1, [body(1, 0, d.opening()), body(1, 1, [[20, 99], b"t" * 16])], [b"o0", b"o1"])
    assert bad.fault == (1, "opening does not match its commitment") and d.evidence(1) == b"r1"
    d.begin(2, _Eng, _P(False, (0,), "roll"))
    r = d.resolve(E, 2, [body(2, 0, [1]), None], [b"x", None])
    assert r.engine is E and r.bodies[0].input == [1]
    with pytest.raises(LocalProtocolError):
        d.resolve(E, 5, [], [])


def test_the_reference_salt_is_a_hash_of_our_own_deterministic_signature():
    """§C13.2: SHA-256("lanopoli/1/sealed-salt\\0" ‖ Ed25519 signature over
    "lanopoli/1/sealed-salt\\0" ‖ gid ‖ step 8 B BE)[0:16]: the same for the same key and step,
    different for another step or key, verifiable with the public key."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from p2p.identity import Identity
    from p2p.sealed import derive_salt

    me, other = Identity.from_seed(b"salt-a"), Identity.from_seed(b"salt-b")
    salt = derive_salt(me, GID, 9)
    msg = b"lanopoli/1/sealed-salt\x00" + GID + (9).to_bytes(8, "big")
    sig = me.sign(b"sealed-salt", GID + (9).to_bytes(8, "big"))
    Ed25519PublicKey.from_public_bytes(me.public_key).verify(sig, msg)
    assert salt == hashlib.sha256(b"lanopoli/1/sealed-salt\x00" + sig).digest()[:16]
    assert salt == derive_salt(me, GID, 9) != derive_salt(me, GID, 10) != derive_salt(other, GID, 10)
    d = SealedDecisions(GID, 0, lambda k: derive_salt(me, GID, k))
    d.begin(0, _Eng, _P(False, (0, 1), "auction_bid"))
    d.seal([20, 5])
    assert d.own()[2] == derive_salt(me, GID, 0)
    bad = SealedDecisions(GID, 0, lambda k: b"short")
    bad.begin(0, _Eng, _P(False, (0, 1), "auction_bid"))
    with pytest.raises(LocalProtocolError):
        bad.seal(None)


def test_a_restarted_peer_recovers_its_committed_bid():
    """§C13.4: the salt is derived again from our key; our committed input is found among the
    inputs we could have sent (every Bid amount included), so the restart does not withdraw."""
    from p2p.identity import Identity
    from p2p.sealed import candidates, derive_salt

    me = Identity.from_seed(b"restart")
    s = _auction_state()
    seat = E.pending(s).actors[0]
    lo, hi = E.bid_limits(s, seat)
    amount = min(hi, lo + 37)
    before = SealedDecisions(GID, seat, lambda k: derive_salt(me, GID, k))
    before.begin(0, E, s)
    c = before.seal(E.encode_action(Bid(amount)))
    before.begin(1, E, s)
    after = SealedDecisions(GID, seat, lambda k: derive_salt(me, GID, k))  # a fresh process
    after.begin(0, E, s)
    after.begin(1, E, s)
    assert after.opening() is None
    assert after.recover(0, c, candidates(E, s, seat))
    assert after.opening() == before.opening() and after.opening()[0] == E.encode_action(Bid(amount))
    assert not after.recover(0, b"\x00" * 32, candidates(E, s, seat))  # nothing opens a junk commitment
