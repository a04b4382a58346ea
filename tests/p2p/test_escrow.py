"""A bad escrow costs its dealer the seat, not the game (protocol.md §C8.2, §C8.3, §C8.5; issue 10).

The attack: a seat deals shares that each match their commitment but lie on a polynomial whose
secret does not open its chain head, waits until it holds everyone else's reveal at a chance
step, and withholds its own. The honest peers vote it out; the quorum's shares do not open its
chain, which proves the escrow bad; the seat is dropped with the public stand-in reveal
(``escrow.dropped_reveal``) and the honest peers finish with one final hash and logs that
verify. With two seats nobody can be dropped: the withholder turns the roll into a pause and,
if the other player gives up, an abandoned game with no winner. In memory, virtual clock, fake
engine."""

from __future__ import annotations

import fake_engine as E
from hypothesis import given, settings
from hypothesis import strategies as st
from p2p import const as C
from p2p.beacon import HashChain
from p2p.escrow import (BAD_RECOMBINATION, UNDECIDED, dropped_reveal, make_escrow, make_shares, quorum, recover_chain,
                        share_commit)
from p2p.lockstep import CheaterProven, GameAbandoned, GameOver, SeatDropped, SeatDropVoted, SeatLost
from p2p.seat_loss import check_drop_record
from p2p.verify import verify_log
from p2p.wire import (MSG_DROP, MSG_ESCROW, MSG_STEP, DropVote, Escrow, EscrowEntry, decode_drop, decode_escrow,
                      decode_step_body, open_envelope, seal)

from p2p_harness import Net, make_lobbies, pump_lobbies, random_legal
from test_resilience import logged_game

DROP = {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}
WRONG_SECRET = b"\x07" * 32


class BadDealer:
    """Seat ``seat`` deals escrows of ``WRONG_SECRET`` (every share matches its commitment) and,
    from the first chance step >= ``at`` on, sends nothing (it withholds its reveal there).
    ``rewrite`` wraps its ``messages_to_send``; ``drop`` is the ``Net`` drop rule."""

    def __init__(self, session, at: int) -> None:
        self.s, self.at = session, at
        self.withheld_at: int | None = None
        self._send = session.messages_to_send
        session.messages_to_send = self.rewrite

    def rewrite(self) -> list:
        out = []
        for raw in self._send():
            if raw[:2] == bytes([0x93, MSG_ESCROW]):
                e = decode_escrow(open_envelope(raw, C.MAX_STEP_MSG).body)
                raw = make_escrow(self.s.identity, WRONG_SECRET, e.game_id, e.seat, e.epoch, [x.to for x in e.entries],
                                  [p.x25519_key for p in self.s.setup.players], quorum(self.s.setup.seats))
            out.append(raw)
        return out

    def drop(self, src: int, dst: int, raw: bytes) -> bool:
        if src != self.s.my_seat:
            return False
        if self.withheld_at is None and raw[:2] == bytes([0x93, MSG_STEP]):
            b = decode_step_body(open_envelope(raw, C.MAX_STEP_MSG).body)
            if b.step >= self.at and type(b.input) is bytes and len(b.input) == 32:
                self.withheld_at = b.step
        return self.withheld_at is not None


def _run_bad_dealer(tmp_path, n: int, seed: int = 4):
    sessions, paths, _, _ = logged_game(tmp_path, n, DROP)
    bad = BadDealer(sessions[n - 1], at=6)
    net = Net(list(sessions), random_legal(E, seed=seed), drop=bad.drop)
    net.run(max_time=1e4)
    return sessions, paths, net, bad


def test_bad_escrow_and_withheld_reveal_cost_the_dealer_its_seat_not_the_game(tmp_path):
    """4 seats (Q = 3): seat 3 deals a bad escrow and withholds at a chance step; seats 0-2 drop
    it at that step with the stand-in reveal, finish with one final hash, and their logs verify
    and name seat 3's bad escrow."""
    sessions, paths, net, bad = _run_bad_dealer(tmp_path, 4)
    k = bad.withheld_at
    assert k is not None
    for i in (0, 1, 2):
        assert [(e.step, e.seat, e.reconstructed) for e in net.events[i] if isinstance(e, SeatDropped)] == [(k, 3, False)]
    o = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in (0, 1, 2)]
    assert all(len(x) == 1 for x in o) and len({x[0].final_hash for x in o}) == 1
    assert any(isinstance(e, SeatLost) for e in net.events[3])  # it applied k with its own reveal
    for i in (0, 1, 2):  # named with the drop; it paid with its seat for good: never re-seated (§C8.9)
        assert [(e.step, e.seat, e.reason) for e in net.events[i] if isinstance(e, CheaterProven)] == \
            [(k, 3, BAD_RECOMBINATION)]
        assert sessions[i].seats.dropped[3].cheat == BAD_RECOMBINATION and sessions[i].seats.returnable() == {}
    for s in sessions:
        s.log.close()
    for p in paths[:3]:
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, rep.error
        assert [(c["seat"], c["step"], c["reason"]) for c in rep.cheaters] == [(3, k, BAD_RECOMBINATION)]


def test_three_seats_two_honest_shares_prove_the_escrow_bad(tmp_path):
    """3 seats (Q = 2, two recipients): both honest votes carry a share; they do not open the
    chain, so the dealer is dropped with the stand-in and the two finish together."""
    sessions, paths, net, bad = _run_bad_dealer(tmp_path, 3, seed=2)
    for i in (0, 1):
        assert [(e.seat, e.reconstructed) for e in net.events[i] if isinstance(e, SeatDropped)] == [(2, False)]
    o = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in (0, 1)]
    assert all(len(x) == 1 for x in o) and o[0][0].final_hash == o[1][0].final_hash


def test_two_seats_a_withholder_can_only_stall_then_the_game_is_abandoned(tmp_path):
    """Q = 2 with two seats: no escrow, no drop. Seat 1 withholds at a chance step after seeing
    seat 0's reveal; seat 0 pauses naming seat 1, never votes, and ends the game as abandoned
    (the node does it after its stall limit): valid, not complete, no winner (§C8.5, §C8.7)."""
    sessions, paths, _, _ = logged_game(tmp_path, 2, DROP)
    bad = BadDealer(sessions[1], at=6)
    net = Net(list(sessions), random_legal(E, seed=3), drop=bad.drop)
    net.run(max_time=600.0)
    s0 = sessions[0]
    assert bad.withheld_at is not None and s0.step == bad.withheld_at and s0.paused() == (1,)
    assert not any(isinstance(e, (SeatDropVoted, SeatDropped)) for e in net.events[0])
    assert not s0.seats.escrow_needed()
    s0.abandon()
    net.deliver()
    assert any(isinstance(e, GameAbandoned) for e in net.events[0])
    s0.log.close()
    rep = verify_log(paths[0], engine=E)
    assert rep.ok and not rep.complete and rep.abandoned == {"seat": 0, "step": bad.withheld_at}


# --- recover_chain and the DROP record alone (no session) -----------------------------------------

def _setup(n):
    lobbies = make_lobbies(n)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda l: l.my_seat)
    return ordered[0].setup, ordered


def _escrow_and_votes(setup, lobbies, dealer, secret, step=5):
    """The dealer's ESCROW of ``secret`` and every recipient's DROP vote carrying its share."""
    gid, n = setup.game_id, setup.seats
    recipients = [i for i in range(n) if i != dealer]
    shares = make_shares(secret, gid, 0, recipients, quorum(n))
    esc_raw = make_escrow(lobbies[dealer].identity, secret, gid, dealer, 0, recipients,
                          [p.x25519_key for p in setup.players], quorum(n))
    votes = {v: seal(lobbies[v].identity, MSG_DROP, [gid, v, step, dealer, 0, shares[v]]) for v in recipients}
    return esc_raw, votes, shares


def test_a_bad_escrow_is_proven_by_the_drop_record_alone():
    """The record [step, seat, Q votes with shares, ESCROW] checks alone: the shares match the
    signed commitments, do not open the chain head of the setup: stand-in, cheat named."""
    from p2p.seat_loss import drop_record

    setup, lobbies = _setup(4)
    esc_raw, votes, _ = _escrow_and_votes(setup, lobbies, 3, WRONG_SECRET)
    rec = check_drop_record(setup, [True] * 4, 0, 5, drop_record(5, 3, [votes[v] for v in (0, 1, 2)], esc_raw))
    assert rec.seat == 3 and rec.chain is None and rec.cheat == BAD_RECOMBINATION
    good_raw, good_votes, _ = _escrow_and_votes(setup, lobbies, 3, lobbies[3].chain.value(0))
    rec = check_drop_record(setup, [True] * 4, 0, 5, drop_record(5, 3, [good_votes[v] for v in (0, 1, 2)], good_raw))
    assert rec.cheat is None and rec.chain.head == setup.players[3].chain_head


def test_a_false_share_in_a_vote_is_the_voters_lie_and_does_not_count():
    """5 seats (Q = 3, m = 4): voter 0's share matches no commitment; it is named a liar and the
    other three shares recombine the real chain (protocol.md §C8.3)."""
    setup, lobbies = _setup(5)
    secret = lobbies[4].chain.value(0)
    esc_raw, _, shares = _escrow_and_votes(setup, lobbies, 4, secret)
    esc = decode_escrow(open_envelope(esc_raw).body)
    gid = setup.game_id
    votes = [DropVote(gid, 0, 5, 4, 0, b"\x09" * C.SHARE_LEN)] + [DropVote(gid, v, 5, 4, 0, shares[v]) for v in (1, 2)]
    r = recover_chain(setup, esc, votes, 4)
    assert r.chain == UNDECIDED and r.liars == (0,)  # two counted votes: wait
    r = recover_chain(setup, esc, votes + [DropVote(gid, 3, 5, 4, 0, shares[3])], 4)
    assert r.liars == (0,) and r.used == (1, 2, 3) and r.chain.head == setup.players[4].chain_head


def test_dropped_reveal_is_the_published_constant():
    """§C8.4: SHA-256("lanopoli/1/dropped\\0" || gid || seat || j as 8 bytes BE)."""
    import hashlib

    gid = bytes(range(16))
    want = hashlib.sha256(b"lanopoli/1/dropped\x00" + gid + b"\x02" + (7).to_bytes(8, "big")).digest()
    assert dropped_reveal(gid, 2, 7) == want


@settings(max_examples=30, deadline=None)
@given(secret=st.binary(min_size=32, max_size=32), fake=st.binary(min_size=32, max_size=32),
       n=st.integers(min_value=3, max_value=7), data=st.data())
def test_every_quorum_decides_the_same_for_good_and_bad_escrows(secret, fake, n, data):
    """Invariant behind agreement (§C8.3): for one escrow, every t-subset of valid shares gives
    the same decision: the real chain (honest dealer) or the stand-in with the cheat named."""
    gid, dealer, t = b"G" * 16, n - 1, quorum(n)
    recipients = list(range(n - 1))
    head = HashChain(secret, 16).head
    dealt = make_shares(fake if data.draw(st.booleans()) else secret, gid, 0, recipients, t)
    esc = Escrow(gid, dealer, 0, tuple(EscrowEntry(v, share_commit(dealt[v], gid, dealer, v, 0), b"")
                                       for v in recipients))

    class S:  # the two fields of a Setup that recover_chain reads
        seats, chain_length = n, 16
        players = [type("P", (), {"chain_head": head})()] * n

    picks = {tuple(sorted(data.draw(st.permutations(recipients))[:t])) for _ in range(3)}
    outs = set()
    for pick in picks:
        r = recover_chain(S, esc, [DropVote(gid, v, 0, dealer, 0, dealt[v]) for v in pick], len(recipients))
        outs.add((None if r.chain is None else r.chain.head, r.cheat))
    assert len(outs) == 1
    (chain_head, cheat), = outs
    assert (chain_head == head and cheat is None) or (chain_head is None and cheat == BAD_RECOMBINATION)


class LyingVoter:
    """Seat ``session.my_seat`` sends every DROP vote with a share it was never dealt (re-signed
    with its own key: a valid signed lie); everything else it sends is honest."""

    def __init__(self, session) -> None:
        self.s = session
        self._send = session.messages_to_send
        session.messages_to_send = self.rewrite

    def rewrite(self) -> list:
        out = []
        for raw in self._send():
            if raw[:2] == bytes([0x93, MSG_DROP]):
                gid, voter, step, seat, epoch, share = decode_drop_fields(raw)
                if share is not None:
                    raw = seal(self.s.identity, MSG_DROP, [gid, voter, step, seat, epoch, b"\x09" * C.SHARE_LEN])
            out.append(raw)
        return out


def decode_drop_fields(raw: bytes) -> list:
    v = decode_drop(open_envelope(raw, C.MAX_STEP_MSG).body)
    return [v.game_id, v.voter, v.step, v.seat, v.epoch, v.share]


def test_a_lying_voter_is_proven_and_the_others_shares_recombine_the_real_chain(tmp_path):
    """5 seats (Q = 3): seat 4 goes silent for good at step 6 (an honest escrow); seat 0 votes
    with a false share (the harness delivers its vote first, so every other peer holds it when
    it reaches a quorum). Seats 1-3 do not count its vote, recombine seat 4's real chain from
    their own three shares, prove seat 0 (COMPLAINT kind 5) and drop it in the next epoch; they
    finish together and their logs verify, naming
    seat 0 only (§C8.3, §C8.8)."""
    sessions, paths, _, _ = logged_game(tmp_path, 5, DROP)
    LyingVoter(sessions[0])
    gone = {"at": None}

    def drop(src, dst, raw):
        if gone["at"] is None and sessions[4].step >= 6:
            gone["at"] = sessions[4].step
        return gone["at"] is not None and 4 in (src, dst)

    net = Net(list(sessions), random_legal(E, seed=6), drop=drop)
    net.run(max_time=1e4)
    for i in (1, 2, 3):
        drops = [(e.seat, e.reconstructed) for e in net.events[i] if isinstance(e, SeatDropped)]
        # Seat 0 is voted out at once after the epoch change, before its new escrow reached
        # anyone: shareless votes, so its stand-in reveals (§C8.3); it withheld nothing.
        assert drops == [(4, True), (0, False)], drops
        assert set(sessions[i].seats.returnable()) == {0, 4}  # no drop record proves a bad escrow here
        assert {e.seat for e in net.events[i] if isinstance(e, CheaterProven)} == {0}
    o = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in (1, 2, 3)]
    assert all(len(x) == 1 for x in o) and len({x[0].final_hash for x in o}) == 1
    for s in sessions:
        s.log.close()
    for p in paths[1:4]:
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, rep.error
        assert {c["seat"] for c in rep.cheaters} == {0}
