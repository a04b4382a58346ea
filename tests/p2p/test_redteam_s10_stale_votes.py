"""Red team, session 10 (H94): DROP votes against our seat at a step we applied long ago (protocol.md
§C8.3: "A seat d is dropped at step k when valid votes DROP(k, d) of the current epoch are held
from Q distinct active seats other than d"; ``session_votes.SessionVotes.receive``: a vote of a
past step against our seat is kept and, once a quorum votes, we halt ``SeatLost``: our state
forked from theirs).

``SeatLoss.has_quorum`` counts every voter's latest vote of that (step, seat), of any epoch and
whether or not a quorum ever formed at that step. Honest votes against H at step j are
ordinary: H was late to those voters by a drop timeout once, the votes found no quorum (the
colluders, who held H's message, did not vote), the step was applied with H's message and the
game went on. Much later two colluding seats sign DROP(j, H) and send them to H alone: H holds
four votes (Q = 3 of 5) and halts, believing it was dropped; the others, for whom H was never
dropped, vote it out as silent. In memory, virtual
clock, fake engine, 5 seats.
"""

from __future__ import annotations

import pytest

import fake_engine as E
from p2p import const as C
from p2p.lockstep import GameOver, SeatDropped, SeatDropVoted, SeatLost
from p2p.escrow import drop_record
from p2p.gamelog import KIND_DROP
from p2p.wire import (MSG_CATCHUP_RESP, MSG_DROP, MSG_STEP, CatchupResponse, DropVote, decode_drop, decode_step_body,
                      open_envelope, seal_message)

from p2p_harness import Net, random_legal
from test_resilience import logged_game

OPTS = {"target": 60, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 5}
H = 0
HONEST = (1, 2)
COLLUDERS = (3, 4)
#: Steps after the honest vote at which the colluders send their late votes.
LATER = 10


def step_j(j: int | None, src: int, data: bytes) -> int | None:
    """Step j of the attacks below: ``j`` once set, else the step of H's first STEP message of a
    step >= 6 if ``data`` (sent by ``src``) is one, else None."""
    if j is None and src == H and data[:2] == bytes([0x93, MSG_STEP]):
        b = decode_step_body(open_envelope(data).body)
        if b.step >= 6:
            return b.step
    return j


class LateThenStale:
    """A ``Net`` drop hook and run hook. From H's first STEP of step >= 6 (step j) until both
    honest voters voted against H at j, nothing of H reaches them, and the colluders (who hold
    H's message and so do not vote) send them nothing but their own STEP messages of steps <= j
    (no catch-up answer, no forward): the honest voters vote, no quorum forms (2 of Q = 3), then
    everything flows and step j is applied with H's message everywhere. LATER steps on, each
    colluder signs DROP(j, H) of epoch 0 and sends it to H only."""

    def __init__(self, sessions, via: str = "votes", to: int = H, later: int = LATER,
                 honest: tuple = HONEST, colluders: tuple = COLLUDERS) -> None:
        self.s, self.via, self.to, self.later = sessions, via, to, later
        #: The honest voters of step j, and the seats that sign the late votes. Every other seat
        #: but H (colluders and honest non-voters) holds H's message and reaches the honest
        #: voters only with its own STEP messages until they voted (H106's property test).
        self.honest, self.colluders = honest, colluders
        self.j: int | None = None
        self.voted = False
        self.sent = False
        self.net: Net | None = None

    def __call__(self, src: int, dst: int, data: bytes) -> bool:
        if dst not in self.honest or self.voted:
            return False
        self.j = step_j(self.j, src, data)
        if self.j is None:
            return False
        if src == H:
            return True
        if src not in self.honest:
            if data[:2] != bytes([0x93, MSG_STEP]):
                return True
            b = decode_step_body(open_envelope(data).body)
            return b.seat != src or b.step > self.j
        return False

    def hook(self, net: Net) -> None:
        if self.j is not None and not self.voted:
            self.voted = all(any(isinstance(e, SeatDropVoted) and (e.step, e.seat) == (self.j, H)
                                 for e in net.events[x]) for x in self.honest)
        h = net.s[self.to]
        if self.voted and not self.sent and h is not None and h.step >= self.j + self.later:
            self.sent = True
            gid = h.setup.game_id
            late = {c: seal_message(self.s[c].identity, MSG_DROP, DropVote(gid, c, self.j, H, 0, None))
                    for c in self.colluders}
            if self.via == "votes":
                for raw in late.values():
                    h.receive_message(raw, net.now)
                return None
            # "record": the honest votes the colluders received at j and their own, as a DROP
            # record in an unsolicited catch-up page of the first colluder (§C9.2, §C9.5).
            votes = dict(late)
            for seat, raw in net.sent_log:
                env = open_envelope(raw)
                if seat in self.honest and env.mtype == MSG_DROP:
                    v = decode_drop(env.body)
                    if (v.step, v.seat) == (self.j, H):
                        votes[seat] = raw
            page = CatchupResponse(gid, self.colluders[0], self.j, h.step,
                                   ((KIND_DROP, drop_record(self.j, H, [votes[i] for i in sorted(votes)], None)),),
                                   (), ())
            h.receive_message(seal_message(self.s[self.colluders[0]].identity, MSG_CATCHUP_RESP, page), net.now)
        return None


def run_restarting(tmp_path, attack) -> tuple:
    """A 5-seat logged game (``OPTS``) under ``attack(sessions)`` (a drop hook with a ``hook``
    method), a peer halted with ``StepOverturned`` restarted from its log as the node does
    (``p2p_harness.restart_overturned``). Returns (attack, net, restarts)."""
    from p2p_harness import restart_overturned

    sessions, paths, secrets, _ = logged_game(tmp_path, 5, OPTS)
    atk = attack(sessions)
    net = atk.net = Net(list(sessions), random_legal(E, seed=3), drop=atk)
    restarts: list = []
    again = restart_overturned(paths, secrets, restarts)

    def hook(n: Net) -> None:
        atk.hook(n)
        again(n)

    net.run(max_time=1e4, hook=hook)
    return atk, net, restarts


@pytest.mark.parametrize("via", ["votes", "record"])
def test_late_votes_for_a_step_long_applied_do_not_make_an_honest_seat_halt(tmp_path, via):
    """The rule (§C8.3): H halts ``SeatLost`` only if a quorum of one epoch dropped it; here no
    quorum ever formed at step j, nobody dropped H: H finishes the game with the others. ``via``:
    the colluders' votes sent as DROP messages, or as a DROP record (with the honest votes) in an
    unsolicited catch-up page (``RecordIngest.check_past_drop``)."""
    sessions, _, _, _ = logged_game(tmp_path, 5, OPTS)
    atk = LateThenStale(sessions, via)
    net = atk.net = Net(list(sessions), random_legal(E, seed=3), drop=atk)
    net.run(max_time=1e4, hook=atk.hook)
    assert atk.voted and atk.sent, net.describe()  # the premise: honest votes, no drop at j
    assert not any(isinstance(e, SeatDropped) and e.step == atk.j for x in HONEST for e in net.events[x])
    assert not [e for e in net.events[H] if isinstance(e, SeatLost)], net.describe()
    assert any(isinstance(e, GameOver) for e in net.events[H])


@pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "H94, open by design (protocol.md §C8.3 'Stale votes', 'Why no local rule closes it', H106): "
    "the same four votes against H at step j, as a DROP record sent 2 steps later to the honest "
    "voter 1 (which applied j with H's message and still keeps j): seat 1 halts StepOverturned(j, H) "
    "and restarts from its log cut at j, then catches up and finishes with the others (no fork). "
    "What 1 holds is what it holds after a real drop that one liar helped, which it must follow "
    "(test_a_real_drop_that_a_liar_helped_is_followed_by_the_voter_it_fooled)"))
def test_late_votes_for_a_recent_step_do_not_overturn_an_honest_peers_step(tmp_path):
    """The record goes to honest seat 1 within KEEP_STEPS of j. The rule (§C8.3): a step is
    overturned only by a drop a quorum really decided; here none did: no honest peer halts with
    ``StepOverturned``, and the three honest peers finish with one final hash (they do today)."""
    from p2p.lockstep import StepOverturned

    atk, net, restarts = run_restarting(tmp_path, lambda s: LateThenStale(s, "record", to=1, later=2))
    assert atk.voted and atk.sent, net.describe()
    finals = {e.final_hash for i in (H,) + HONEST for e in net.events[i] if isinstance(e, GameOver)}
    assert len(finals) == 1, net.describe()
    assert not restarts and not [e for e in net.events[1] if isinstance(e, StepOverturned)], (restarts, net.describe())


@pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "H94, open by design (protocol.md §C8.3 'Stale votes', H106: within KEEP_STEPS any Q valid votes "
    "act alike at every peer, the only rule that never forks a real drop a liar helped): the same "
    "two honest votes of step j plus the colluders' two late ones, sent to H 2 steps after j (as "
    "votes or as a DROP record), make H halt SeatLost(j); the others vote it out as silent and "
    "finish without it"))
@pytest.mark.parametrize("via", ["votes", "record"])
def test_late_votes_within_keep_steps_do_not_make_an_honest_seat_halt(tmp_path, via):
    """As above, the late votes sent while H is 2 steps past j (within ``KEEP_STEPS``). The
    rule (§C8.3): no quorum ever formed at j, so H finishes the game with the others."""
    sessions, _, _, _ = logged_game(tmp_path, 5, OPTS)
    atk = LateThenStale(sessions, via, later=2)
    net = atk.net = Net(list(sessions), random_legal(E, seed=3), drop=atk)
    net.run(max_time=1e4, hook=atk.hook)
    assert atk.voted and atk.sent, net.describe()
    assert not [e for e in net.events[H] if isinstance(e, SeatLost)], net.describe()
    assert any(isinstance(e, GameOver) for e in net.events[H])


class FooledCertificate:
    """A ``Net`` drop hook and run hook: a real drop at step j that one liar helped, mirror of
    ``LateThenStale`` (H106, protocol.md §C8.3 'Stale votes', why a vote is never void for
    having a step-(j+1) message of its voter over H's message). 5 seats, Q = 3. From H's first
    STEP of step >= 6 (step j), nothing of H reaches seats 1 and 2 and nothing but their own
    STEP messages from 3 and 4 reaches 1 (no forward, no catch-up answer) until 1 voted; 2 gets
    nothing of H, no forwarded message of H and no catch-up answer until it dropped H. Seats 3
    and 4 hold H's message and apply j with it. Seat 3 (the liar) also signs DROP(j, H) with its
    real share and sends it to seat 2 alone: 2 holds votes of 1, 2, 3 and drops H at j. Seat 1
    gets H's message forwarded after its vote and 3's and 4's step-(j+1) messages over it: its
    certificate (§C8.3 'A voter's promise') and applies j with H's message."""

    def __init__(self, sessions) -> None:
        self.s = sessions
        self.j: int | None = None
        self.voted1 = False
        self.dropped2 = False
        self.sent = False
        self.net: Net | None = None

    def __call__(self, src: int, dst: int, data: bytes) -> bool:
        self.j = step_j(self.j, src, data)
        if self.j is None:
            return False
        if dst == 2 and not self.dropped2:
            if src == H or data[:2] == bytes([0x93, MSG_CATCHUP_RESP]):
                return True
            return data[:2] == bytes([0x93, MSG_STEP]) and decode_step_body(open_envelope(data).body).seat == H
        if dst == 1 and not self.voted1:
            if src == H:
                return True
            if src in COLLUDERS:
                return data[:2] != bytes([0x93, MSG_STEP]) or decode_step_body(open_envelope(data).body).seat != src
        return False

    def hook(self, net: Net) -> None:
        def did(seat, kind):
            return any(isinstance(e, kind) and (e.step, e.seat) == (self.j, H) for e in net.events[seat])

        if self.j is None:
            return
        self.voted1 = self.voted1 or did(1, SeatDropVoted)
        self.dropped2 = self.dropped2 or did(2, SeatDropped)
        liar, two = net.s[3], net.s[2]
        if not self.sent and did(2, SeatDropVoted) and liar is not None and two is not None:
            from p2p.escrow import open_share
            from p2p.wire import decode_escrow

            self.sent = True
            esc = decode_escrow(open_envelope(liar.seats.escrow_of(H)).body)
            share = open_share(liar.identity, esc, 3, liar.setup.players[H].x25519_key)
            vote = DropVote(liar.setup.game_id, 3, self.j, H, 0, share)
            two.receive_message(seal_message(liar.identity, MSG_DROP, vote), net.now)


def test_a_real_drop_that_a_liar_helped_is_followed_by_the_voter_it_fooled(tmp_path):
    """The case that refutes voiding a vote DROP(j, H) whose voter signed a step-(j+1) message
    over H's message (§C8.3 'Stale votes'): seat 2 (honest) really dropped H at j with the votes
    of 1, 2 and the liar 3; seat 1 applied j with H's message on a certificate the liar fooled
    (3 and 4 signed j+1 over it) and 4 at once. Seats 1 and 4 hold the step-(j+1) messages of
    1 and 3 over H's message: under that rule they would count one vote of three, keep their
    step and vote seat 2 out as silent (an honest seat lost, the table forked from it). The rule
    kept (any Q valid votes overturn a kept step): they roll back (``StepOverturned``), restart,
    and 1, 2, 4 finish together with one final hash, H dropped at j."""
    from p2p.lockstep import StepOverturned

    atk, net, restarts = run_restarting(tmp_path, FooledCertificate)
    assert atk.sent and atk.voted1 and atk.dropped2, net.describe()  # the premise: 2 really dropped H
    assert (4, atk.j) in {(r[0], r[1]) for r in restarts}, (restarts, net.describe())  # 4 had applied j with H's
    assert any(isinstance(e, StepOverturned) for e in net.events[4])
    finals = {e.final_hash for i in (1, 2, 4) for e in net.events[i] if isinstance(e, GameOver)}
    assert len(finals) == 1, net.describe()
    assert any(isinstance(e, GameOver) for e in net.events[2]), net.describe()


class SplitAtCompletion(LateThenStale):
    """``LateThenStale`` with honest voters 1 and 3, the colluder 2 and the honest non-voter 4
    (the roles of ``FooledCertificate`` with 2 and 3 swapped, §C8.3 'Why no local rule closes it'
    item 2). After the votes, 2's step-(j+1) message and catch-up answers do not reach 1, so 1
    stays at j+1 while 3 completes it; then 2 sends 1 a DROP record of (j, H) (the stale votes
    of 1 and 3, its own late one with its real share) and sends it again to 1 restarted at j."""

    def __init__(self, sessions) -> None:
        super().__init__(sessions, "record", to=1, later=1, honest=(1, 3), colluders=(2,))
        self.page: bytes | None = None
        self.resent = False

    def __call__(self, src: int, dst: int, data: bytes) -> bool:
        if not self.voted or self.resent or dst != 1:
            return super().__call__(src, dst, data)
        if data[:2] == bytes([0x93, MSG_CATCHUP_RESP]):
            return True
        if data[:2] != bytes([0x93, MSG_STEP]):
            return False
        b = decode_step_body(open_envelope(data).body)
        return b.seat == 2 and b.step == self.j + 1

    def hook(self, net: Net) -> None:
        from p2p.escrow import open_share
        from p2p.wire import decode_escrow

        if self.j is not None and not self.voted:
            self.voted = all(any(isinstance(e, SeatDropVoted) and (e.step, e.seat) == (self.j, H)
                                 for e in net.events[x]) for x in self.honest)
        one, three, liar = net.s[1], net.s[3], net.s[2]
        if not self.voted or one is None or three is None or liar is None:
            return
        if self.page is None and three.step >= self.j + 2 and one.step == self.j + 1:
            esc_raw = liar.seats.escrow_of(H)
            esc = decode_escrow(open_envelope(esc_raw).body)
            gid = liar.setup.game_id
            share = open_share(liar.identity, esc, 2, liar.setup.players[H].x25519_key)
            votes = {2: seal_message(liar.identity, MSG_DROP, DropVote(gid, 2, self.j, H, 0, share))}
            for seat, raw in net.sent_log:
                env = open_envelope(raw)
                if seat in self.honest and env.mtype == MSG_DROP and decode_drop(env.body)[2:4] == (self.j, H):
                    votes[seat] = raw
            rec = drop_record(self.j, H, [votes[i] for i in sorted(votes)], esc_raw)
            self.page = seal_message(liar.identity, MSG_CATCHUP_RESP,
                                     CatchupResponse(gid, 2, self.j, one.step, ((KIND_DROP, rec),), (), ()))
            self.sent = True
            one.receive_message(self.page, net.now)
        elif self.page is not None and not self.resent and one.step == self.j and one.phase == "running":
            self.resent = True
            one.receive_message(self.page, net.now)


def test_a_stale_record_at_a_peer_still_at_the_next_step_does_not_split_it_from_the_others(tmp_path):
    """§C8.3 'Why no local rule closes it' item 3: seat 1, still at j+1, must follow the record
    (what it holds is what a real drop shows); after its restart 2 hands it the record again and
    it drops H at j. 3 and 4 completed j+1 with 1's first step-(j+1) message. Rule kept: the
    peers that keep j follow 1's records (roll back) and 1, 3, 4 finish with one final hash. A
    rule that ignores the quorum once j+1 is completed ('ignore at k+2') leaves 1 alone with
    the drop: voted out, the table split."""
    atk, net, restarts = run_restarting(tmp_path, SplitAtCompletion)
    assert atk.voted and atk.sent and atk.resent, (restarts, net.describe())
    assert (1, atk.j) in {(r[0], r[1]) for r in restarts}, (restarts, net.describe())
    finals = {e.final_hash for i in (1, 3, 4) for e in net.events[i] if isinstance(e, GameOver)}
    assert len(finals) == 1 and all(any(isinstance(e, GameOver) for e in net.events[i]) for i in (1, 3, 4)), \
        (restarts, net.describe())
