"""Red team session 12 (H122): protocol version 5 (4de917b, §C8.3 'Shares in votes that decide
nothing') against a restart of the seat that released its share.

Version 5's guarantee rests on rule (c) and item 3: "A voter that released its share must never
apply step k with d's message", enforced by the held quorum (``SeatLoss.quorum_at``: no
certificate, ``StepGate`` waits). The quorum's votes live in memory only; the own-message log
keeps our own (released) vote (rule (b): "The release is written ahead to the own-message log
like the vote"). After a restart from the logs (§C10) the releaser holds its released vote and
nothing else: no quorum, so ``certified`` may pass on a colluder's step-(k+1) message (a liar
counts on both sides), and it applies k with d's message, which rule (c) forbids.

In memory, virtual clock, fake engine, 3 seats (Q = t = 2), as tests/p2p/test_redteam_s11_vote_shares.py.
"""

from __future__ import annotations

import fake_engine as E
from p2p import const as C
from p2p.beacon import HashChain
from p2p.bodies import DropVote
from p2p.envelope import open_envelope
from p2p.escrow import open_share
from p2p.lockstep import GameOver, SeatDropped, StepApplied
from p2p.resume import resume_session
from p2p.threshold import combine
from p2p.wire import MSG_DROP, MSG_ESCROW, decode_drop, decode_escrow, seal_message

from p2p_harness import Net, random_legal
from test_resilience import logged_game

HONEST, VICTIM, COLLUDER = 0, 1, 2
STEP = 6  # the victim's player thinks 20 s at its first decision from this step on
OPTS = {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30, C.OPT_TURN_TIME: 300}


class Releaser(Net):
    """The victim thinks 20 s at step k (alive); at 5 s the honest player presses 'j' (open vote)
    and the colluder's open DROP(k, victim), signed apart from its session, reaches the honest seat
    ONLY: the honest seat holds Q = 2 votes and releases its share (rule (b)). The colluder's own
    session never votes: it applies k with the victim's message and signs k+1 over it.
    ``restart``: the honest peer dies as its release goes out (before its first re-send forwards
    the quorum) and is resumed from its logs 1 s later (``resume_session``, §C10)."""

    def __init__(self, sessions, paths, secrets, restart: bool) -> None:
        super().__init__(sessions, random_legal(E, seed=7), drop=self._see)
        self.paths, self.secrets, self.restart = paths, secrets, restart
        self.started: float | None = None
        self.at = -1
        self.voted = self.forged = False
        self.to_colluder: list[bytes] = []
        self.released_at: float | None = None
        self.down: float | None = None
        self.again = None

    def _see(self, src, dst, raw):
        env = open_envelope(raw, 1 << 20)
        if dst == COLLUDER and env.mtype in (MSG_DROP, MSG_ESCROW):
            self.to_colluder.append(raw)
        if src == HONEST and env.mtype == MSG_DROP and decode_drop(env.body).share is not None:
            self.released_at = self.now if self.released_at is None else self.released_at
        return False

    def thinks(self, seat, s):
        if seat != VICTIM or s.step < STEP or (self.started is not None and s.step != self.at):
            return False
        if self.started is None:
            self.started, self.at = self.now, s.step
        return self.now < self.started + 20.0

    def hook(self):
        if self.started is None:
            return None
        h = self.s[HONEST]
        if not self.voted and self.now >= self.started + 5.0:
            self.voted = h.vote_out(VICTIM, self.now)
        if self.voted and not self.forged:
            c = self.s[COLLUDER]
            vote = DropVote(c.setup.game_id, COLLUDER, self.at, VICTIM, c.seats.epoch, None)
            h.receive_message(seal_message(c.identity, MSG_DROP, vote), self.now)
            self.forged = True
        if self.restart and self.released_at is not None and self.down is None:
            h.log.close()
            h.own_log.close()
            self.s[HONEST], self.down = None, self.now
        if self.down is not None and self.again is None and self.now >= self.down + 1.0:
            self.again, _ = resume_session(self.paths[HONEST], self.identity, self.secrets[HONEST], E,
                                           own_log_path=str(self.paths[HONEST]) + ".own", now=self.now)
            self.s[HONEST] = self.again
        if self.down is not None and self.again is None:
            return self.down + 1.0
        return self.started + (20.0 if self.voted else 5.0) if self.now < self.started + 20.0 else None


class TableResumes(Releaser):
    """``Releaser`` without the crash: the table waits, paused on the quorum (the victim decided
    at 20 s); at 40 s, before the nodes' 60 s stall limit, the players stop the stuck game and
    resume it from their logs (§C10, §N3.2 'A table that stops and goes on another day')."""

    def hook(self):
        wake = super().hook()
        if self.started is None or self.down is not None:
            return wake
        if self.now < self.started + 40.0:
            return max(wake or 0.0, self.started + 40.0)
        self.down = self.now
        for s in self.s:
            s.log.close()
            s.own_log.close()
        self.s = [resume_session(self.paths[i], self.ids[i], self.secrets[i], E,
                                 own_log_path=str(self.paths[i]) + ".own", now=self.now)[0] for i in range(3)]
        self.again = self.s[HONEST]
        return None


def _run(tmp_path, restart: bool, net_class=Releaser):
    sessions, paths, secrets, _ = logged_game(tmp_path, 3, OPTS)
    net = net_class(list(sessions), paths, secrets, restart)
    net.identity, net.ids = sessions[HONEST].identity, [s.identity for s in sessions]
    net.run(max_time=2000.0, max_rounds=2_000_000, hook=lambda n: n.hook())
    return net, sessions


def _colluder_recombines(net, sessions) -> bool:
    """The colluder's own share of the victim's escrow + the honest released share open the
    victim's chain (its committed head)."""
    setup = sessions[0].setup
    envs = [open_envelope(r, 1 << 20) for r in net.to_colluder]
    rel = [v for e in envs if e.mtype == MSG_DROP for v in [decode_drop(e.body)] if v.voter == HONEST and v.share]
    if not rel:
        return False
    esc = next(d for e in envs if e.mtype == MSG_ESCROW for d in [decode_escrow(e.body)]
               if d.seat == VICTIM and d.epoch == rel[0].epoch)
    own = open_share(sessions[COLLUDER].identity, esc, COLLUDER, setup.players[VICTIM].x25519_key)
    secret = combine({HONEST: rel[0].share, COLLUDER: own})
    return secret is not None and HashChain(secret, setup.chain_length).head == setup.players[VICTIM].chain_head


def test_premise_without_a_restart_the_releaser_never_applies_the_step(tmp_path):
    """Version 5 as designed: the honest seat released (the colluder recombines the victim's
    chain) but holds the quorum, forwards it, and nobody honest plays step k with the victim's
    message: the table waits (paused, abandoned at the stall limit)."""
    net, sessions = _run(tmp_path, restart=False)
    assert net.released_at is not None and _colluder_recombines(net, sessions)
    for seat in (HONEST, VICTIM):
        assert not [e for e in net.events[seat] if isinstance(e, StepApplied) and e.step >= net.at], net.describe()


def test_a_releaser_restarted_from_its_logs_still_never_applies_the_step(tmp_path):
    """BREAK s12 #8 (HIGH outcome, MED likelihood: reopens session 11's #9, an honest ACTIVE seat's
    hash-chain secret h_0 in a colluder's hands while it plays on). As the premise, but the honest
    peer restarts from its logs right after its release: it holds its released vote (own log) and
    no quorum, the victim decides, the colluder (whose session never voted) signs k+1 over the
    victim's message, which certifies the honest voter (need = active - Q = 1), and all three
    play the game to its end with the victim active; the colluder holds its own share + the
    released one (t = 2): every reveal the victim will send. Triggers: the releaser's crash
    before its first re-send; a stalled table (paused on the quorum) whose players quit and
    resume it another day (§N3.2; the quorum's votes are nowhere in the logs: each peer logs
    its own only); untested, a rollback the colluder provokes (its two signed versions of a
    step-(k-1) decision, §C3.4: StepOverturned, restart cut at k-1). Suggested fix: a released
    vote of ours of (k, d, e) in the own-message log is a decision of its own after a restart
    (no certificate at k, StepGate waits, the vote re-sent), or write the quorum's Q envelopes
    ahead to the own-message log with the release so that ``quorum_at`` holds again. FIXED
    (H121): the latter (``SessionVotes.check`` writes the quorum's other votes before our
    release; ``SessionVotes.adopt`` holds them again; §C8.3 rule (b))."""
    net, sessions = _run(tmp_path, restart=True)
    assert net.again is not None and _colluder_recombines(net, sessions)
    assert not any(isinstance(e, SeatDropped) for evs in net.events for e in evs)
    played = [e for e in net.events[HONEST] if isinstance(e, StepApplied) and e.step == net.at]
    overs = [len([e for e in evs if isinstance(e, GameOver)]) for evs in net.events]
    assert not played, f"the restarted releaser applied step {net.at} with the victim in play; game over {overs}"
    # FIXED (H121): the quorum's votes are written ahead to the own-message log with the release,
    # held again after the restart and forwarded: the victim holds the quorum too, neither plays k.
    assert not [e for e in net.events[VICTIM] if isinstance(e, StepApplied) and e.step >= net.at], net.describe()
    assert net.s[HONEST].paused() == (VICTIM,) == net.s[VICTIM].paused()


def test_a_table_paused_on_a_quorum_and_resumed_still_never_applies_the_step(tmp_path):
    """BREAK s12 #8, the natural trigger (no crash timing): the premise's table, paused on the
    quorum (the victim holds it too, forwarded), is stopped at 40 s and resumed from the logs by
    every player. Nobody logged the quorum; the honest seat holds its released vote only, the
    colluder's STEP of k+1 certifies it, and the game is played to its end with the victim active
    and its chain in the colluder's hands. Fix as above."""
    net, sessions = _run(tmp_path, restart=False, net_class=TableResumes)
    assert net.again is not None and _colluder_recombines(net, sessions)
    played = [e for e in net.events[HONEST] if isinstance(e, StepApplied) and e.step == net.at]
    assert not played, f"after the resume the releaser applied step {net.at} with the victim in play"
    assert not [e for e in net.events[VICTIM] if isinstance(e, StepApplied) and e.step >= net.at], net.describe()
    assert net.s[HONEST].paused() == (VICTIM,) == net.s[VICTIM].paused()  # FIXED (H121): the quorum held again
