"""Red team, session 10 (H94), re-attack of H98's 496cdd4 (protocol.md §C8.8 'What a peer keeps'):
a receiver judges at most ``COMPLAINT_BUDGET`` = 64 validly signed complaints of one complainer
that give it nothing new (they prove nothing, or prove a seat already proven); later ones of that
seat are dropped unchecked. "Safe: an honest seat sends one complaint per bad message it receives
and a proven culprit is voted out at once, so it sends a handful per game; only the seat's own
key spends its budget."

The attack: the number of bad messages an honest seat receives is the cheater's choice. Seat C
sends the honest victim H, at one decision step, many signed versions of its step message: H
proves C by each (kind 1, equivocation) and sends a COMPLAINT for each; the other honest peers
prove C with the first and count the others as nothing new, so C spends H's budget at every
other peer, with H's own key. C is voted out as it should be. Later C's colluder D sends H
alone a signed wrong reveal at a chance step (§C8.8 kind 2, the issue-9 attack): H proves D,
but every other peer drops H's complaint unchecked.

In memory, virtual clock, fake engine, 5 seats (Q = 3: the three honest seats drop anyone).
"""

from __future__ import annotations

import fake_engine as E
from p2p import const as C
from p2p.complaints import COMPLAINT_BUDGET
from p2p.lockstep import CheaterProven, GameOver, SeatDropped
from p2p.wire import MSG_STEP, decode_step_body, open_envelope, seal

from p2p_harness import Net, random_legal
from test_resilience import logged_game

OPTS = {"target": 60, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 5}
H, BURNER, LIAR = 0, 4, 3
#: Virtual seconds the run goes on after seat 1 finished (the others finish at once).
STOP_AFTER_S = 60.0
#: Versions of its step message the burner sends the victim: enough to spend its budget.
VERSIONS = COMPLAINT_BUDGET + 8


class BurnThenLie:
    """A ``Net`` drop hook. With ``burn``: BURNER's first decision-step message of step >= 8 to H
    is followed by VERSIONS other signed versions (input ``["adv", i]``, same history), each
    delivered to H. Then LIAR's first chance-step message (a reveal) of a step at least 3 past
    BURNER's drop (or of step >= 8 without ``burn``) goes to H as a signed wrong reveal (every
    copy), its real one to the others. ``k`` / ``lie_step``: the steps of both."""

    def __init__(self, sessions, burn: bool) -> None:
        self.s, self.burn = sessions, burn
        self.k: int | None = None
        self.dropped_at: int | None = None
        self.lie_step: int | None = None
        self.lie: bytes | None = None
        self.finished_at: float | None = None
        self.net: Net | None = None

    def __call__(self, src: int, dst: int, data: bytes) -> bool:
        if dst != H or data[:2] != bytes([0x93, MSG_STEP]):
            return False
        b = decode_step_body(open_envelope(data).body)
        if src == BURNER and self.burn and self.k is None and b.step >= 8 and type(b.input) is not bytes:
            self.k = b.step
            self.net.s[H].receive_message(data, self.net.now)
            for i in range(VERSIONS):
                other = seal(self.s[BURNER].identity, MSG_STEP,
                             [b.game_id, b.step, BURNER, b.prev_hash, b.prev_digest, ["adv", i]])
                self.net.s[H].receive_message(other, self.net.now)
            return True
        ready = self.dropped_at is not None if self.burn else True
        start = (self.dropped_at + 3) if self.burn and self.dropped_at is not None else 8
        if src == LIAR and ready and b.step >= start and type(b.input) is bytes and self.lie_step in (None, b.step):
            if self.lie is None:
                self.lie_step = b.step
                self.lie = seal(self.s[LIAR].identity, MSG_STEP,
                                [b.game_id, b.step, LIAR, b.prev_hash, b.prev_digest, b"\x13" * 32])
            self.net.s[H].receive_message(self.lie, self.net.now)
            return True
        return False

    def hook(self, net: Net) -> None:
        """Note BURNER's drop; end the run STOP_AFTER_S after seat 1 finished (a victim left
        waiting would otherwise run its timers to ``max_time``)."""
        if self.dropped_at is None:
            for e in net.events[1]:
                if isinstance(e, SeatDropped) and e.seat == BURNER:
                    self.dropped_at = e.step
        if self.finished_at is None and any(isinstance(e, GameOver) for e in net.events[1]):
            self.finished_at = net.now
        if self.finished_at is not None and net.now > self.finished_at + STOP_AFTER_S:
            net.s[:] = [None] * len(net.s)


def _play(tmp_path, burn: bool) -> tuple[BurnThenLie, Net]:
    sessions, _, _, _ = logged_game(tmp_path, 5, OPTS)
    atk = BurnThenLie(sessions, burn)
    net = atk.net = Net(list(sessions), random_legal(E, seed=7), drop=atk)
    net.run(max_time=1e4, hook=atk.hook)
    return atk, net


def _proven_by(net: Net, seat: int) -> set[int]:
    return {e.seat for e in net.events[seat] if isinstance(e, CheaterProven)}


def test_a_wrong_reveal_to_one_victim_is_proven_by_every_honest_peer(tmp_path):
    """Without the burn (the control): LIAR's signed wrong reveal to H alone is proven by H and,
    through H's complaint, by the two other honest peers (§C8.8), and LIAR is dropped."""
    atk, net = _play(tmp_path, burn=False)
    assert atk.lie_step is not None
    for seat in (H, 1, 2):
        assert LIAR in _proven_by(net, seat), (seat, net.describe())
        assert LIAR in {e.seat for e in net.events[seat] if isinstance(e, SeatDropped)}, (seat, net.describe())


def test_a_cheater_cannot_spend_an_honest_victims_complaint_budget_for_its_colluder(tmp_path):
    """With the burn: BURNER is proven and dropped; then LIAR's wrong reveal to H. The rule
    (§C8.8: a peer that receives a provably bad signed message does not halt alone; every receiver
    of its complaint judges the evidence): the two other honest peers prove LIAR too, and H
    finishes the game with them."""
    atk, net = _play(tmp_path, burn=True)
    assert atk.k is not None and atk.dropped_at is not None and atk.lie_step is not None, net.describe()
    assert all(BURNER in _proven_by(net, seat) for seat in (H, 1, 2))
    assert LIAR in _proven_by(net, H)
    assert all(LIAR in _proven_by(net, seat) for seat in (1, 2)), (_proven_by(net, 1), _proven_by(net, 2))
    assert any(isinstance(e, GameOver) for e in net.events[H]), net.describe()
