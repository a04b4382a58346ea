"""Red team s12b (H128): protocol version 5 (§C8.3 'Shares in votes that decide nothing', rule (c))
against a drop of ANOTHER seat at the same step, which starts a new epoch.

§C8.3 'What is left' says the quorum binds in its epoch only, and that a second quorum of one
epoch for another seat "needs a voter that signed two votes in one slot (an equivocation, proven
where both votes meet), so this needs a liar whose two votes never meet at the releaser". Here
they meet (the releaser proves the liar), and it does not matter: the seats that drop the other
seat never held the releaser's quorum (the liar's vote in it is, to them, the second of its
two), so they move to the next epoch, where the releaser's quorum counts for nothing, and play
the step with the victim's message, while a colluder that never equivocated holds the victim's
chain secret (the released share plus the colluders' own: t of them).

7 seats (Q = t = 4, three colluders): H1 = 0 presses 'j' against the victim V = 1, which thinks;
C1 = 2 goes silent at that step (sacrificed: the others vote it out); C2 = 3 is the liar (its
DROP(k, V) reaches H1 only, its DROP(k, C1) the others only); C3 = 4 votes DROP(k, V) at H1 only
and nothing else in that epoch (clean); H2 = 5 and H3 = 6 are honest. In memory, virtual clock,
fake engine, as tests/p2p/test_redteam_s12_release.py.
"""

from __future__ import annotations

import fake_engine as E
from p2p import const as C
from p2p.beacon import HashChain
from p2p.bodies import DropVote
from p2p.envelope import open_envelope
from p2p.escrow import open_share
from p2p.lockstep import CheaterProven, SeatDropped, StepApplied
from p2p.resume import resume_session
from p2p.threshold import combine
from p2p.wire import MSG_DROP, MSG_ESCROW, decode_drop, decode_escrow, seal_message

from p2p_harness import Net, random_legal
from test_resilience import logged_game

H1, V, C1, C2, C3, H2, H3 = range(7)
HONEST = (H1, H2, H3)
STEP = 6
OPTS = {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30, C.OPT_TURN_TIME: 300}


class EpochDodge(Net):
    """V's player thinks 90 s at its first decision from STEP on (its peer alive); at 5 s H1
    presses 'j' (open DROP(k, V)). From then C1 sends nothing (the others vote it out on
    silence, 30 s); the colluders' own sessions' DROP votes of that epoch are held back. Once
    H2, H3 and V voted C1 out, at one instant: the DROP(k, V) votes of C1, C2, C3 (signed apart)
    reach H1 only (a quorum: H1 releases its share of V), and C2's DROP(k, C1) reaches H2, H3
    and V only (their quorum against C1). C2's own session's votes flow from then on.
    ``liar`` False (the premise): C2 casts no DROP(k, C1) at all, in the injection or its session."""

    def __init__(self, sessions, liar: bool) -> None:
        super().__init__(sessions, random_legal(E, seed=11), drop=self._drop)
        self.liar = liar
        self.started: float | None = None
        self.at = -1
        self.epoch = -1
        self.voted = False
        self.t0: float | None = None

    def _drop(self, src, dst, raw):
        if self.started is None:
            return False
        if src == C1:
            return True  # silent from the step on
        env = open_envelope(raw, 1 << 20)
        if env.mtype == MSG_DROP and src in (C2, C3):
            v = decode_drop(env.body)
            if v.epoch == self.epoch and (src == C3 or self.t0 is None or not self.liar):
                return True  # C3 casts no other vote in that epoch; C2's wait for the instant
        return False

    def thinks(self, seat, s):
        if seat == V and s.step >= STEP and self.started is None:  # V's first decision from STEP on
            self.started, self.at, self.epoch = self.now, s.step, s.seats.epoch
        return seat == V and s.step == self.at and self.now < self.started + 90.0

    def hook(self):
        if self.started is None:
            return None
        h = self.s[H1]
        self.voted = self.voted or (self.now >= self.started + 5.0 and h.vote_out(V, self.now))  # 'j'
        if self.t0 is None and all(self.s[i].seats.has_voted(self.at, C1) for i in (H2, H3, V)):
            self.t0 = self.now
            for c in (C1, C2, C3):
                vote = DropVote(h.setup.game_id, c, self.at, V, self.epoch, None)
                h.receive_message(seal_message(self.s[c].identity, MSG_DROP, vote), self.now)
            liar = seal_message(self.s[C2].identity, MSG_DROP,
                                DropVote(h.setup.game_id, C2, self.at, C1, self.epoch, None))
            for i in (H2, H3, V) if self.liar else ():
                self.s[i].receive_message(liar, self.now)
        return self.started + 5.0 if not self.voted else None


def _run(tmp_path, liar: bool = True, until: float = 600.0):
    sessions, _paths, _secrets, _ = logged_game(tmp_path, 7, OPTS)
    net = EpochDodge(list(sessions), liar)
    net.run(max_time=until, max_rounds=3_000_000, hook=lambda n: n.hook())
    return net, sessions


def _clean_colluder_recombines(net, sessions) -> bool:
    """H1's released share of V (it went to every seat, C3 included) and the three colluders' own
    shares of V's escrow of that epoch open V's chain (its committed head): t = 4."""
    setup = sessions[0].setup
    rel = [v for i, raw in net.sent_log if i == H1 for e in [open_envelope(raw, 1 << 20)] if e.mtype == MSG_DROP
           for v in [decode_drop(e.body)] if v.seat == V and v.share is not None and v.epoch == net.epoch]
    if not rel:
        return False
    escrows = [d for i, raw in net.sent_log if i == V for e in [open_envelope(raw, 1 << 20)] if e.mtype == MSG_ESCROW
               for d in [decode_escrow(e.body)] if d.seat == V and d.epoch == net.epoch]
    if not escrows:
        return False
    esc = escrows[0]
    shares = {H1: rel[0].share}
    for c in (C1, C2, C3):
        shares[c] = open_share(sessions[c].identity, esc, c, setup.players[V].x25519_key)
    secret = combine(shares)
    return secret is not None and HashChain(secret, setup.chain_length).head == setup.players[V].chain_head


def _outcome(net, sessions) -> tuple:
    """(colluders recombine V's chain, {honest seat: applied step k}, seats dropped, seats H1 proved)."""
    played = {i: any(isinstance(e, StepApplied) and e.step == net.at for e in net.events[i]) for i in HONEST}
    dropped = {e.seat for evs in net.events for e in evs if isinstance(e, SeatDropped)}
    proven = {e.seat for e in net.events[H1] if isinstance(e, CheaterProven)}  # at the releaser
    return _clean_colluder_recombines(net, sessions), played, dropped, proven


def test_premise_without_the_liar_the_released_share_leaves_the_step_unplayed(tmp_path):
    """Version 5 as designed: the same table, C2 casting no DROP(k, C1) (so no quorum against
    C1 forms): H1 released (the colluders hold V's chain), its quorum is forwarded and no honest
    peer plays step k (V decided at 90 s; the table waits, paused, as §C8.3 'What is left' says)."""
    net, sessions = _run(tmp_path, liar=False, until=100.0)
    recombined, played, _dropped, _proven = _outcome(net, sessions)
    assert net.t0 is not None and recombined
    assert not any(played.values()), played


def test_a_released_share_never_leaves_the_victim_playing_the_step(tmp_path):
    """Was BREAK s12b #2 (HIGH outcome / LOW likelihood: N >= 7, three colluders, two sacrificed).
    H1 released its share of V on the colluders' quorum (C1, C2, C3 signed DROP(k, V) to it
    only); at the same instant C2's DROP(k, C1) completes H2, H3 and V's quorum against the silent
    C1. To them C2's DROP(k, V) in H1's forwarded quorum is its second vote (C2 proven, kind 1),
    so they never hold a quorum against V; they drop C1 at k (epoch e + 1), then C2, and play
    step k with V's message; H1 follows (its epoch-e quorum counts for nothing in e + 1). V plays
    on, and C3, never proven, active, holds V's chain secret: H1's released share + the three
    colluders' own shares of V's epoch-e escrow = t = 4 (§C12.7: in niente its hidden secret too).
    Contradicts §C8.3 'What holds' (the colluders recombine only the chain of a seat whose step k
    is never applied with its message) and 'What is left' (this "needs a liar whose two votes
    never meet at the releaser": here they meet, H1 proves C2, too late). Suggested fix: a quorum
    of (k, d) held in an earlier epoch at the same step k still decides (the chain secret is the
    same in every epoch): its holder never applies k with d's message in a later epoch, keeps
    forwarding it, and a peer receiving it drops d at k as on a quorum of the current epoch
    (recombining from the shares of that epoch's escrow); a voter proven to have signed two votes
    of one (k, e) should count in no quorum of that slot, live or in a DROP record (alone this
    turns the break into a stall only when the proof comes before the other drop is decided).

    Fixed (H132, §C8.3 rule (c) 'The quorum binds in every epoch of its step'): every verified
    vote is kept by its slot (step, epoch, seat), the liar's second one included, and a quorum of
    an earlier epoch of the current step against a seat still active binds as one of the current
    epoch (``SeatLoss.bound_at``: no certificate, no step applied, forwarded). The honest seats
    drop C1 and C2 at k as before, then wait at k, paused on V, and so does V: the colluders hold
    V's chain secret of a table that never plays step k (abandoned at the stall limit), as with
    colluders that complete a quorum and never release. Finding (b) of the suggestion, a proven
    equivocator counting in no quorum of its slot, is not applied: it would uncount the liar's
    vote that makes H1's quorum, i.e. undo this binding (and refuse DROP records others applied)."""
    net, sessions = _run(tmp_path, until=200.0)
    recombined, played, dropped, proven = _outcome(net, sessions)
    assert net.t0 is not None and C2 in proven and C3 not in dropped | proven
    assert not (recombined and any(played.values()) and V not in dropped), (
        f"colluders recombine V's chain: {recombined}; honest seats that applied step {net.at} with V "
        f"active: {played}; dropped {sorted(dropped)}, proven {sorted(proven)}")
    assert {C1, C2} <= dropped and V not in dropped and not any(played.values())
    for i in HONEST + (V,):  # the honest seats and the victim wait at k on the quorum against V
        s = sessions[i]
        assert s.step == net.at and s.seats.epoch == net.epoch + 2 and s.seats.bound_at(net.at) == V
        assert s.paused() == (V,), (i, s.paused())


class TableResumes(EpochDodge):
    """``EpochDodge`` with the liar; at 150 s, every seat paused at k, the players stop the game and
    resume it from their logs (§C10): H1's own-message log holds its released vote of epoch e and
    the quorum's other votes (written ahead, §C8.3 rule (b)); the others hold nothing of it."""

    def __init__(self, sessions, paths, secrets) -> None:
        super().__init__(sessions, liar=True)
        self.paths, self.secrets = paths, secrets
        self.ids = [s.identity for s in sessions]
        self.down: float | None = None

    def hook(self):
        wake = super().hook()
        if self.started is None or self.down is not None:
            return wake
        if self.now < self.started + 150.0:
            return min(w for w in (wake, self.started + 150.0) if w is not None)
        self.down = self.now
        for log in [x for s in self.s for x in (s.log, s.own_log)]:
            log.close()
        self.s = [resume_session(p, ident, sec, E, own_log_path=f"{p}.own", now=self.now)[0]
                  for p, ident, sec in zip(self.paths, self.ids, self.secrets)]
        return None


def test_a_table_resumed_from_its_logs_still_waits_on_the_earlier_epochs_quorum(tmp_path):
    """The fix across a restart (as red team s12 #8 for one epoch): after the resume H1 holds the
    epoch-e quorum again from its own-message log (its own vote is of an earlier epoch than the
    resumed session's: held by slot, not as our vote of this epoch), forwards it with its re-sends,
    and no honest seat nor V applies step k (all paused on V)."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 7, OPTS)
    net = TableResumes(list(sessions), paths, secrets)
    net.run(max_time=300.0, max_rounds=3_000_000, hook=lambda n: n.hook())
    assert net.down is not None
    played = [i for i in HONEST + (V,) for e in net.events[i] if isinstance(e, StepApplied) and e.step >= net.at]
    assert not played, played
    for i in HONEST + (V,):
        s = net.s[i]
        assert s.step == net.at and s.seats.bound_at(net.at) == V and s.paused() == (V,), (i, s.paused())
