"""Red team session 11 (H107): the escrow shares in DROP votes that decide nothing (protocol.md
§C8.2, §C8.3, §C8.5; §C8.3 'Two-phase votes' names the danger for its prevotes).

In memory, virtual clock, fake engine, 3 seats (Q = t = 2), seat loss on (tests/p2p/p2p_harness.py).
"""

from __future__ import annotations

import fake_engine as E
from p2p import const as C
from p2p.beacon import HashChain
from p2p.envelope import open_envelope
from p2p.escrow import open_share
from p2p.lockstep import GameOver, SeatDropped, StepApplied
from p2p.threshold import combine
from p2p.wire import MSG_DROP, MSG_ESCROW, decode_drop, decode_escrow

from p2p_harness import Net, random_legal
from test_resilience import logged_game

HONEST, VICTIM, COLLUDER = 0, 1, 2
STEP = 6  # the victim's player thinks at its first decision from this step on
OPTS = {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30, C.OPT_TURN_TIME: 300}


class SlowVictim(Net):
    """The victim's player thinks 20 s at STEP (its peer sends ALIVE: honest and alive); at 5 s
    the honest seat's player, impatient, presses 'j' (``vote_out``, §C13.6). The colluder never
    votes (its DROP votes are not sent); it keeps what reaches it."""

    def __init__(self, sessions):
        super().__init__(sessions, random_legal(E, seed=7), drop=self._filter)
        self.started: float | None = None
        self.at = -1
        self.voted = False
        self.to_colluder: list[bytes] = []

    def _filter(self, src, dst, raw):
        mtype = open_envelope(raw, 1 << 20).mtype
        if dst == COLLUDER and mtype in (MSG_DROP, MSG_ESCROW):
            self.to_colluder.append(raw)
        return src == COLLUDER and mtype == MSG_DROP

    def thinks(self, seat, s):
        if seat != VICTIM or s.step < STEP or (self.started is not None and s.step != self.at):
            return False
        if self.started is None:  # the victim's first decision from STEP on
            self.started, self.at = self.now, s.step
        return self.now < self.started + 20.0

    def hook(self):
        if self.started is None or self.now >= self.started + 20.0:
            return None
        if not self.voted and self.now >= self.started + 5.0:
            self.voted = self.s[HONEST].vote_out(VICTIM, self.now)
        return self.started + (20.0 if self.voted else 5.0)


def test_a_drop_vote_that_decides_nothing_does_not_hand_a_colluder_an_active_seats_chain(tmp_path):
    """BREAK (HIGH: the colluder learns an honest, still active seat's hash-chain secret h_0:
    every reveal it will ever send; in niente-e-come-sembra also its hidden secret, hence its
    bill-order secret, which tells its kept fakes from its unpicked bills, §C12.7). 3 seats,
    Q = t = 2. The victim's player thinks 20 s at one step (its peer is alive); after 5 s the
    honest seat's player presses 'j' (§C13.6): its DROP(k, victim) goes to both others with its
    share of the victim's escrow, in clear (§C8.3 body `share: bin(66)`). The colluder does not
    vote, so no quorum forms, the victim decides, the game goes on with it and ends normally.
    The colluder now holds two shares of the victim's escrow: its own (decrypted from the
    ESCROW dealt to it) and the honest voter's, t = 2: ``threshold.combine`` gives the victim's
    h_0, whose chain is the victim's committed head. Cost: nothing but not voting; the trigger
    is any honest vote that does not complete (a 'j' press, a turn time or drop timeout reached
    by a seat that then speaks: §C8.3 'stale votes', a split). With N seats it needs 2Q - N
    such honest shares (1 at odd N, 2 at even N) besides the N - Q colluders' own; §C8.5 accepts
    'any Q other seats together can recombine a seat's chain', and the two-phase design keeps
    shares out of prevotes for exactly this reason (§C8.3 'Two-phase votes': 'a POL that never
    decides must not hand out shares'), but the live one-phase DROP hands them out at every
    vote. It breaks §C8.1's 'an escrow ... with threshold Q, opened only by a quorum of drop
    votes'. FIXED in version 5 (H121, §C8.3 'Shares in votes that decide nothing'): the vote is
    open (no share) and released only once its voter holds Q votes against the victim."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 3, OPTS)
    net = SlowVictim(list(sessions))
    net.run(max_time=1e5, hook=lambda n: n.hook())
    assert net.voted
    assert all(not isinstance(e, SeatDropped) for evs in net.events for e in evs)  # nobody was dropped
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(o) == 1 for o in overs)  # the game ended with the victim in it
    setup = sessions[0].setup
    votes = [decode_drop(open_envelope(r, 1 << 20).body) for r in net.to_colluder
             if open_envelope(r, 1 << 20).mtype == MSG_DROP]
    honest = [v for v in votes if v.voter == HONEST and v.seat == VICTIM]
    assert honest, "the honest vote reached the colluder"  # the attack ran: the vote was cast and seen
    escrows = [decode_escrow(open_envelope(r, 1 << 20).body) for r in net.to_colluder
               if open_envelope(r, 1 << 20).mtype == MSG_ESCROW]
    mine = next(e for e in escrows if e.seat == VICTIM and e.epoch == honest[0].epoch)
    own = open_share(sessions[COLLUDER].identity, mine, COLLUDER, setup.players[VICTIM].x25519_key)
    assert own is not None  # the colluder holds its own share: one more is all it needs (t = 2)
    # Version 5 (§C8.3 rule (b)): the vote is open, its share stays home (no quorum was held).
    assert all(v.share is None for v in honest), "the honest vote handed out its share without a quorum"
    for v in honest:  # and nothing the colluder got recombines the victim's chain with its own share
        secret = combine({HONEST: v.share, COLLUDER: own}) if v.share is not None else None
        assert secret is None or HashChain(secret, setup.chain_length).head != setup.players[VICTIM].chain_head


class OpenColluder(SlowVictim):
    """``SlowVictim`` where the colluder votes too, open, with the honest 'j' (it completes the
    quorum, Q = 2), and never releases: from its vote on, nothing of it but that open vote is
    sent (§C8.3 rule (b), H121's self-attack)."""

    def _filter(self, src, dst, raw):
        env = open_envelope(raw, 1 << 20)
        if dst == COLLUDER and env.mtype in (MSG_DROP, MSG_ESCROW):
            self.to_colluder.append(raw)
        if src != COLLUDER or not getattr(self, "colluded", False):
            return False
        # From its vote on the colluder sends nothing but its open vote: its share never leaves
        # (neither in a released vote nor in a DROP record of a catch-up answer).
        return env.mtype != MSG_DROP or decode_drop(env.body).share is not None

    def hook(self):
        wake = super().hook()
        if self.voted and not getattr(self, "colluded", False):
            self.colluded = self.s[COLLUDER].vote_out(VICTIM, self.now)
        return wake


def test_a_colluder_that_completes_a_quorum_and_never_releases_stalls_the_step_and_frees_nobody(tmp_path):
    """Version 5, §C8.3 rules (b), (c) and 'Not live against them' (H121): the honest 'j' and the
    colluder's open vote are a quorum (Q = 2) against the thinking victim. The honest seat releases
    its share (it holds the quorum); the colluder never releases. From then on no honest peer
    applies the step with the victim's message (no certificate while a quorum is held: item 3),
    though the victim decides; with one released share of t = 2 nobody can drop the victim either:
    the step waits (paused, a node abandons at its stall limit). The colluder holds the victim's
    chain secret, but the victim never plays another step of this game with it."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 3, OPTS)
    net = OpenColluder(list(sessions))
    net.run(max_time=400.0, hook=lambda n: n.hook())
    assert net.voted and net.colluded
    k = net.at
    for seat in (HONEST, VICTIM):  # (the colluder's own copy may drop the victim: it keeps it)
        assert not [e for e in net.events[seat] if isinstance(e, SeatDropped)]
        assert net.s[seat].step == k, net.describe()  # never applied k with the victim's message
        assert not [e for e in net.events[seat] if isinstance(e, StepApplied) and e.step >= k]
    assert net.s[HONEST].seats.quorum_at(k) == VICTIM and net.s[HONEST].steps.held(k, VICTIM) is not None
    assert net.s[HONEST].paused() == (VICTIM,) == net.s[VICTIM].paused()  # reported: abandoned at the stall limit
    released = [v for r in net.to_colluder if open_envelope(r, 1 << 20).mtype == MSG_DROP
                for v in [decode_drop(open_envelope(r, 1 << 20).body)] if v.voter == HONEST and v.share is not None]
    assert released  # the honest share left only on the quorum (it did hold one)
