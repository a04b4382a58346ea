"""Red team session 11 (H107): the escrow shares in DROP votes that decide nothing (protocol.md
§C8.2, §C8.3, §C8.5; §C8.3 'Two-phase votes' names the danger for its prevotes).

In memory, virtual clock, fake engine, 3 seats (Q = t = 2), seat loss on (tests/p2p/p2p_harness.py).
"""

from __future__ import annotations

import pytest

import fake_engine as E
from p2p import const as C
from p2p.beacon import HashChain
from p2p.envelope import open_envelope
from p2p.escrow import open_share
from p2p.lockstep import GameOver, SeatDropped
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


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="§C8.1/§C8.3 (H107 s11 #9): a DROP vote carries its escrow share in clear even when no "
                          "quorum follows; N-Q colluders plus 2Q-N such shares recombine an active honest seat's "
                          "chain secret (its every future reveal; in niente its hidden and bill-order secrets). OPEN "
                          "(H113): withholding the share until a quorum is held needs a new protocol version (§C8.3 "
                          "'Shares in votes that decide nothing'; tests/p2p/test_vote_share_release.py)")
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
    votes'. Suggested fix: publish a vote's share only once a quorum is certain (share-less
    votes first; the shares in a second message once Q votes for (k, d) are held, as the
    two-phase precommit); failing that, document it as open in §C8.5 and the fault table."""
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
    leaked = [v for v in votes if v.voter == HONEST and v.seat == VICTIM and v.share is not None]
    assert leaked, "the honest vote reached the colluder with its share"
    escrows = [decode_escrow(open_envelope(r, 1 << 20).body) for r in net.to_colluder
               if open_envelope(r, 1 << 20).mtype == MSG_ESCROW]
    mine = next(e for e in escrows if e.seat == VICTIM and e.epoch == leaked[0].epoch)
    own = open_share(sessions[COLLUDER].identity, mine, COLLUDER, setup.players[VICTIM].x25519_key)
    assert own is not None
    secret = combine({HONEST: leaked[0].share, COLLUDER: own})
    learned = secret is not None and HashChain(secret, setup.chain_length).head == setup.players[VICTIM].chain_head
    assert not learned, "the colluder recombined the active victim's chain secret from one vote that decided nothing"
