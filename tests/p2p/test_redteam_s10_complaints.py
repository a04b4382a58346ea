"""Red team, session 10 (H94): a cheating seat that times its sends so that an honest judge is one
step behind when the victim's COMPLAINT arrives (protocol.md §C8.8 kind 2, §C3.4).

The attack: seat C holds back its step-(k-1) message (and its catch-up answers) to one honest
peer W, so W stays at step k-1, and sends the victim V a signed wrong reveal at chance step k
(the real one to W, later). A kind-2 complaint is judged against the judge's own state
(``complaints.check_bad_step``) and ``Complaints.seen`` marks it before judging: a judge still at
step k-1, holding no step-k message of C, would find that it proves nothing and never judge it
again, and with 3 seats (Q = 2) C would keep its seat. Found to hold: V judges a reveal only
when it applies step k (§C3.3), which needs W's own step-k message, so W is at step k when the
complaint comes. In memory, virtual clock, fake engine.
"""

from __future__ import annotations

import fake_engine as E
from p2p import const as C
from p2p.lockstep import CheaterProven, GameOver, SeatDropped
from p2p.wire import MSG_CATCHUP_RESP, MSG_COMPLAINT, MSG_STEP, decode_step_body, open_envelope, seal

from p2p_harness import Net, random_legal
from test_resilience import logged_game

OPTS = {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30}


class LateToOne:
    """Seat ``cheater`` (C) sends seat ``victim`` (V) a signed wrong reveal (32 bytes 0x13) instead
    of its reveal at its first chance step ``k`` >= ``from_step`` (every copy, re-sends too), and
    holds every STEP message of step >= ``from_step`` - 1 it sends seat ``late`` (W) until it has
    sent the next one, and its catch-up answers to W; its step-(k-1) and step-k messages to W
    wait until V's first COMPLAINT reached W. A ``Net`` drop hook (``__call__``) and run hook
    (``hook``)."""

    def __init__(self, sessions, cheater: int, victim: int, late: int, from_step: int = 6) -> None:
        self.s, self.c, self.v, self.w, self.from_step = sessions, cheater, victim, late, from_step
        self.k: int | None = None
        self.lie: bytes | None = None
        self.held: dict[int, bytes] = {}  # step -> C's message to W not delivered yet
        self.complaint_at_w = False
        self.net: Net | None = None

    def __call__(self, src: int, dst: int, data: bytes) -> bool:
        if src == self.v and dst == self.w and data[:2] == bytes([0x93, MSG_COMPLAINT]):
            self.complaint_at_w = True
            return False
        if src == self.c and dst == self.w and data[:2] == bytes([0x93, MSG_CATCHUP_RESP]):
            return not self.complaint_at_w  # C answers W's catch-up only once the complaint is there
        if src != self.c or data[:2] != bytes([0x93, MSG_STEP]):
            return False
        b = decode_step_body(open_envelope(data).body)
        if dst == self.v and (b.step == self.k or (self.k is None and b.step >= self.from_step
                                                    and type(b.input) is bytes)):
            if self.lie is None:
                self.k = b.step
                self.lie = seal(self.s[self.c].identity, MSG_STEP,
                                [b.game_id, b.step, self.c, b.prev_hash, b.prev_digest, b"\x13" * 32])
            self.net.s[self.v].receive_message(self.lie, self.net.now)
            return True
        if dst == self.w and b.step >= self.from_step - 1:
            if b.step not in self.held:
                self.held[b.step] = data
            return self.held[b.step] is not None  # re-sends wait with the first copy
        return False

    def hook(self, net: Net) -> float | None:
        """Release C's held step-j message to W once C sent step j+1 (the cheat step and the one
        before it only after V's complaint reached W)."""
        for j in sorted(self.held):
            if j + 1 not in self.held or self.held[j] is None:
                continue
            if self.k is not None and j in (self.k - 1, self.k) and not self.complaint_at_w:
                continue
            if net.s[self.w] is not None:
                net.s[self.w].receive_message(self.held[j], net.now)
            self.held[j] = None
        if self.complaint_at_w and self.k is not None:
            for j in sorted(self.held):  # the cheat step's message too, once it is the last held
                if self.held[j] is not None and net.s[self.w] is not None:
                    net.s[self.w].receive_message(self.held[j], net.now)
                    self.held[j] = None
        return None


def test_a_complaint_reaching_a_judge_one_step_behind_still_gets_the_cheater_dropped(tmp_path):
    """3 seats, Q = 2: C = 2 sends V = 0 a signed wrong reveal at chance step k and keeps W = 1
    at step k-1 as long as it can (until V's complaint reached W), then sends W its real
    messages. The rule (§C8.8: a proven cheater is voted out by a quorum): V proves C, and C is
    dropped on both honest peers, which finish with one final hash."""
    sessions, paths, _, _ = logged_game(tmp_path, 3, OPTS)
    atk = LateToOne(sessions, cheater=2, victim=0, late=1)
    net = atk.net = Net(list(sessions), random_legal(E, seed=9), drop=atk)
    w_step_at_complaint = {}

    def hook(net):
        if atk.complaint_at_w and "w" not in w_step_at_complaint:
            w_step_at_complaint["w"] = net.s[1].step
        return atk.hook(net)

    net.run(max_time=1e4, hook=hook)
    assert atk.k is not None and atk.complaint_at_w
    # The attack's premise fails by construction: V judges C's reveal only when it applies step
    # k, which needs W's step-k message, so W is at step k (or past it) when the complaint comes.
    assert w_step_at_complaint["w"] >= atk.k, (w_step_at_complaint, atk.k)
    assert {e.seat for e in net.events[0] if isinstance(e, CheaterProven)} == {2}
    for i in (0, 1):
        assert [e.seat for e in net.events[i] if isinstance(e, SeatDropped)] == [2], (i, net.describe())
    finals = {e.final_hash for i in (0, 1) for e in net.events[i] if isinstance(e, GameOver)}
    assert len(finals) == 1, net.describe()
