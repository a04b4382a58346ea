"""What a quorum's released votes decide about a dropped seat's reveals does not depend on which
quorum a peer holds (protocol.md §C8.3 'Recombination', version 5; H127 review #1, H133).

With a CONFIRMED escrow of m entries and t = Q: t valid released shares recombine the chain (or
prove the escrow bad: the stand-in, ``BAD_RECOMBINATION``); m - t + 1 released keys, each proving
its entry bad (``key_proves_bad``), leave no t valid shares, so the stand-in (``BAD_ENTRY``);
anything else waits (``UNDECIDED``). Both can never hold for one escrow (t + m - t + 1 > m
distinct voters), so two peers holding different quorums decide the same. Before (4de917b) one
key and t - 1 other votes decided the stand-in while t good shares of the other entries
recombined the real chain: a fork of d's reveals.

Real escrow crypto (X25519, ChaCha20-Poly1305, Shamir, commitments); no session.
"""

from __future__ import annotations

import hashlib

from hypothesis import event, given, settings
from hypothesis import strategies as st

import fake_engine as E
from p2p import aead
from p2p import const as C
from p2p.beacon import HashChain
from p2p.escrow import (BAD_ENTRY, BAD_RECOMBINATION, NONCE, UNDECIDED, check_drop_record, drop_record,
                        key_proves_bad, make_shares, open_share, pair_key, quorum, recover_chain, share_commit,
                        share_ctx)
from p2p.escrow_acks import EscrowAck, escrow_hash
from p2p.identity import Identity
from p2p.seat_loss import Decision, SeatLoss
from p2p.wire import (MSG_DROP, MSG_ESCROW, DropVote, Escrow, EscrowEntry, decode_drop, decode_escrow, open_envelope,
                      seal_message)

from p2p_harness import make_lobbies, pump_lobbies

SECRET = bytes(range(32))
OTHER = b"\x07" * 32
GID = b"D" * 16
IDS = [Identity.from_seed(f"escrow decision {i}".encode()) for i in range(8)]
XK = [i.x25519_public_key for i in IDS]
GOOD, GARBAGE, SEALED, ODD = "good", "garbage", "sealed", "odd"


class _Setup:
    """The fields of a Setup that ``recover_chain`` reads: every seat's chain head is SECRET's."""

    def __init__(self, n: int) -> None:
        self.seats, self.chain_length, self.game_id = n, 16, GID
        self.players = [type("P", (), {"chain_head": HashChain(SECRET, 16).head})()] * n


def _escrow(n: int, d: int, kinds: dict[int, str]) -> Escrow:
    """d's escrow of SECRET to every other seat, entry v as ``kinds[v]`` says: GOOD; GARBAGE (66
    zero bytes under the true pairwise key, the true share's commitment: a key proves it);
    SEALED (the true share under another key: nothing opens it, nothing proves it); ODD (a
    share of OTHER, committed as dealt: it opens, but no t shares with it open the chain)."""
    rec = [v for v in range(n) if v != d]
    t = quorum(n)
    dealt, odd = make_shares(SECRET, GID, 0, rec, t), make_shares(OTHER, GID, 0, rec, t)
    entries = []
    for v in rec:
        kind = kinds.get(v, GOOD)
        share = odd[v] if kind == ODD else dealt[v]
        key = pair_key(IDS[d], XK[v], GID, d, v, 0)
        if kind == SEALED:
            key = hashlib.sha256(b"another key" + bytes((v,))).digest()
        plain = bytes(C.SHARE_LEN) if kind == GARBAGE else share
        ct = aead.encrypt(key, NONCE, plain, share_ctx(GID, d, v, 0))
        entries.append(EscrowEntry(v, share_commit(share, GID, d, v, 0), ct))
    return Escrow(GID, d, 0, tuple(entries))


def _released(esc: Escrow, v: int) -> bytes | None:
    """What honest recipient ``v`` releases (§C8.3 rule (a)): its share if its entry opens, its
    key if the key proves the entry bad, else nothing (its vote stays open)."""
    share = open_share(IDS[v], esc, v, XK[esc.seat])
    if share is not None:
        return share
    key = pair_key(IDS[v], XK[esc.seat], GID, esc.seat, v, 0)
    return key if key_proves_bad(esc, v, key) else None


def _vote(esc: Escrow, v: int, release: bool) -> DropVote:
    return DropVote(GID, v, 9, esc.seat, 0, _released(esc, v) if release else None)


def _outcome(r) -> tuple:
    """(chain head or None, cheat) of a decided ``Recovery``."""
    return (None if r.chain is None else r.chain.head), r.cheat


def _arrivals(esc: Escrow, order: list[tuple[int, bool]]) -> list:
    """``recover_chain`` after each arrival (voter, released) in ``order``, a later release of a
    voter replacing its open vote (``SeatLoss.add_vote`` keeps the released one)."""
    held: dict[int, DropVote] = {}
    out = []
    for v, rel in order:
        held[v] = _vote(esc, v, rel)
        out.append(recover_chain(_Setup(5), esc, [held[i] for i in sorted(held)], 4))
    return out


def test_one_bad_entry_decides_the_chain_in_either_order_of_arrival():
    """§C8.3 'Recombination', n = 5 (m = 4, t = 3), seat 1's entry GARBAGE (its key proves it):
    peer A gets the releases of 0, 2, 3 first, peer B seat 1's key first, then the open votes
    of 0 and 2 (a quorum), then the releases. Neither decides the stand-in on the way; both
    decide d's real chain (H127's fork: B decided the stand-in on its quorum)."""
    esc = _escrow(5, 4, {1: GARBAGE})
    a = _arrivals(esc, [(0, True), (2, True), (3, True), (1, True)])
    b = _arrivals(esc, [(1, True), (0, False), (2, False), (0, True), (2, True), (3, True)])
    head = HashChain(SECRET, 16).head
    for run in (a, b):
        decided = [_outcome(r) for r in run if r.chain != UNDECIDED]
        assert decided and set(decided) == {(head, None)}, run
    assert [r.chain == UNDECIDED for r in b] == [True] * 5 + [False]  # B's quorum with the key waits
    assert a[2].used == b[-1].used == (0, 2, 3)


def test_m_minus_t_plus_1_bad_entries_decide_the_stand_in_in_either_order():
    """n = 5, entries of seats 1 and 3 GARBAGE: m - t + 1 = 2 keys leave 2 < t valid shares, so
    the stand-in, the dealer named (``BAD_ENTRY``), whichever order; the record logs the two keys
    and the lowest other vote, and ``check_drop_record`` decides the same from it alone."""
    esc = _escrow(5, 4, {1: GARBAGE, 3: GARBAGE})
    a = _arrivals(esc, [(0, True), (2, True), (1, True), (3, True)])
    b = _arrivals(esc, [(3, True), (1, True), (2, False)])
    assert [r.chain == UNDECIDED for r in a] == [True, True, True, False]
    assert [r.chain == UNDECIDED for r in b] == [True, True, False]
    assert _outcome(a[-1]) == _outcome(b[-1]) == (None, BAD_ENTRY)
    assert a[-1].used == (0, 1, 3) and b[-1].used == (1, 2, 3)
    one_key = recover_chain(_Setup(5), esc, [_vote(esc, 0, True), _vote(esc, 1, True), _vote(esc, 2, True)], 4)
    assert one_key.chain == UNDECIDED  # one key and two shares: neither rule yet


def _table(n: int) -> tuple:
    lobbies = make_lobbies(n, options={C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30})
    pump_lobbies(lobbies)
    by = sorted(lobbies.values(), key=lambda lb: lb.my_seat)
    return by[0].setup, [lb.identity for lb in by], by


def _env(raw: bytes):
    return open_envelope(raw, C.MAX_STEP_MSG)


def _give(seat: SeatLoss, raw: bytes) -> None:
    env = _env(raw)
    assert seat.add_vote(env, decode_drop(env.body)) is None


def test_live_seat_loss_peers_decide_the_same_chain_whoever_gets_the_key_first():
    """H127's live repro on ``SeatLoss`` (n = 5, k = 5): dealer 4's entry for seat 1 is garbage
    under their true key (commitment of the true share); every recipient acknowledges (the
    escrow is CONFIRMED). Seats 0, 2, 3 vote open; colluder 1 sends its released key to seat 2
    first. Seat 2's quorum (1's key, 0's open vote, its own) now waits (``UNDECIDED``) instead of
    deciding the stand-in; once the honest releases arrive, seats 0 and 2 decide d's real chain,
    and each Decision's DROP record checks to that chain (``check_drop_record``)."""
    n, d, x, k = 5, 4, 1, 5
    setup, ids, by = _table(n)
    gid = setup.game_id
    seats = [SeatLoss(setup, i, ids[i], by[i].chain.value(0), E) for i in range(n)]
    raws = {}
    for i, s in enumerate(seats):
        raw, _ = s.own_escrow(False)
        if i == d:
            e = decode_escrow(_env(raw).body)
            kx = seats[x].share_key(d)
            ents = tuple(en._replace(ct=aead.encrypt(kx, NONCE, bytes(C.SHARE_LEN), share_ctx(gid, d, x, 0)))
                         if en.to == x else en for en in e.entries)
            raw = seal_message(ids[d], MSG_ESCROW, e._replace(entries=ents))
        raws[i] = raw
    for i, raw in raws.items():
        for j, o in enumerate(seats):
            if j != i:
                o.receive_escrow(_env(raw), decode_escrow(_env(raw).body), k, False)
    for o in seats:
        for r in range(n):
            o.acks.add(r, tuple(EscrowAck(dl, 0, escrow_hash(raws[dl])) for dl in range(n) if dl != r))
    key = seats[x]._bad_keys[d]
    a, b = seats[0], seats[2]
    opens = {i: seats[i].vote(k, d) for i in (0, 2, 3)}
    for raw in (seal_message(ids[x], MSG_DROP, DropVote(gid, x, k, d, 0, key)), opens[0]):
        _give(b, raw)
    assert b.quorum_at(k) == d and b.decide(k, d) == UNDECIDED  # was: the stand-in (H127)
    for raw in (opens[2], opens[3]):
        _give(a, raw)
    for raw in (opens[0], opens[2]):
        _give(seats[3], raw)
    rel = {0: a.release(k, d), 2: b.release(k, d), 3: seats[3].release(k, d)}
    assert all(rel.values())
    for i in (2, 3):
        _give(a, rel[i])
    for i in (0, 3):
        _give(b, rel[i])
    ra, rb = a.decide(k, d), b.decide(k, d)
    head = setup.players[d].chain_head
    for r in (ra, rb):
        assert isinstance(r, Decision) and isinstance(r.chain, HashChain) and r.chain.head == head and r.cheat is None
        rec = check_drop_record(setup, [True] * n, 0, k, drop_record(k, d, r.votes, r.escrow), a.acks)
        assert rec.chain.head == head and rec.cheat is None


KIND = st.sampled_from([GOOD] * 5 + [GARBAGE] * 3 + [SEALED, ODD])
RELEASE = st.sampled_from([True, True, True, False])


@settings(max_examples=200, deadline=None)
@given(data=st.data(), n=st.integers(min_value=3, max_value=8))
def test_any_two_quorums_that_decide_decide_the_same(data, n):
    """Property (§C8.3 'Recombination'): for any escrow (each entry GOOD, GARBAGE, SEALED or ODD)
    and any two sets of honest votes (each voter open or released, as ``_released`` says), if
    both decide, they decide the same chain or stand-in and the same cheat; the t votes each
    logs (``used``) decide the same alone (the DROP record). With every voter released and no
    SEALED entry, the full set always decides."""
    d = data.draw(st.integers(min_value=0, max_value=n - 1))
    rec = [v for v in range(n) if v != d]
    kinds = {v: data.draw(KIND) for v in rec}
    if data.draw(RELEASE):
        kinds = {v: (GOOD if k == ODD else k) for v, k in kinds.items()}  # no ODD: recombination can work
    if data.draw(st.booleans()):  # H127's case: one bad entry, every other good
        kinds = dict.fromkeys(rec, GOOD) | {data.draw(st.sampled_from(rec)): GARBAGE}
    esc = _escrow(n, d, kinds)
    setup, m, t = _Setup(n), len(rec), quorum(n)
    outcomes = []
    for _ in range(2):
        voters = sorted(data.draw(st.sets(st.sampled_from(rec), min_size=t)))
        votes = [_vote(esc, v, data.draw(RELEASE)) for v in voters]
        r = recover_chain(setup, esc, votes, m)
        assert r.liars == ()  # honest releases are never lies
        if r.chain != UNDECIDED:
            assert len(r.used) == t
            alone = recover_chain(setup, esc, [v for v in votes if v.voter in r.used], m)
            assert _outcome(alone) == _outcome(r)
            outcomes.append(_outcome(r))
    assert len(set(outcomes)) <= 1, (kinds, outcomes)
    event(f"quorums deciding: {len(outcomes)}, {outcomes[0][1] if outcomes else 'none'}, bad entries: "
          f"{sum(k == GARBAGE for k in kinds.values())}")
    full = recover_chain(setup, esc, [_vote(esc, v, True) for v in rec], m)
    if SEALED not in kinds.values():
        assert full.chain != UNDECIDED
        if full.chain is not None:
            assert ODD not in kinds.values() and sum(k == GARBAGE for k in kinds.values()) < m - t + 1
    if outcomes and full.chain != UNDECIDED:
        assert _outcome(full) == outcomes[0]
    if full.chain is None:
        assert full.cheat == (BAD_RECOMBINATION if sum(k == GARBAGE for k in kinds.values()) < m - t + 1
                              else BAD_ENTRY)
