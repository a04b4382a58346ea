"""Sealed simultaneous decisions in the lockstep session (protocol.md §C13): whole classico
games of in-memory peers with the real engine and bots. Auction rounds with two or more bidders
take a commit step and an open step; nobody holds another seat's bid before it has committed
its own; a wrong opening names its seat; a withdrawn one counts as a pass; the logs verify."""

from __future__ import annotations

import pytest

import engine as E
from engine.actions import Bid
from p2p.gamelog import LogWriter
from p2p.lockstep import CheaterProven, GameOver, StepApplied
from p2p.sealed import SALT_LEN
from p2p.verify import verify_log
from p2p.wire import MSG_STEP, decode_step_body, open_envelope

from p2p_harness import Net, make_lobbies, pump_lobbies


def _sessions(tmp_path, n: int, options=None):
    lobbies = make_lobbies(n, edition="classico", options=options)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    writers = [LogWriter(tmp_path / f"{i}.log", lob.log_header()) for i, lob in enumerate(ordered)]
    return [lob.start_session(E, log=w) for lob, w in zip(ordered, writers)], writers


def _bot(s):
    return E.bots.choose(s.state, s.my_seat)


def _logged_sessions(tmp_path):
    """A 3-seat classico game with a game log and an own-message log per seat: (sessions,
    log paths, seat 1's hash-chain secret h_0)."""
    from p2p.gamelog import OwnLog

    lobbies = make_lobbies(3, edition="classico")
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    paths = [tmp_path / f"{i}.log" for i in range(3)]
    sessions = [lob.start_session(E, log=LogWriter(p, lob.log_header())) for lob, p in zip(ordered, paths)]
    for s, p in zip(sessions, paths):
        s.own_log = OwnLog(str(p) + ".own")
    return sessions, paths, ordered[1].chain.value(0)


class PatientNet(Net):
    """Seat ``patient`` chooses only once it holds every other active seat's message of the
    step (a peer patched to wait), and records what it then holds of theirs."""

    def __init__(self, sessions, choose, patient: int, **kw) -> None:
        super().__init__(sessions, choose, **kw)
        self.patient = patient
        self.seen: list[tuple[int, list]] = []  # (step, other seats' held inputs) at each choice

    def inputs(self) -> bool:
        moved = False
        for s in self.s:
            if s is None or s.needs_local_input() is None:
                continue
            if s.my_seat == self.patient:
                if any(i != s.my_seat for i in s.waiting_for()):
                    continue  # wait for the others: the lookahead cheat
                held = [None if h is None else h.body.input for i, h in enumerate(s.steps.slots(s.step))
                        if i != s.my_seat]
                if len(E.pending(s.state).actors) >= 2:
                    self.seen.append((s.step, held))
            s.submit_local_input(self.choose(s), now=self.now)
            moved = True
        return moved


def _finish(net, writers, tmp_path):
    net.run(max_time=1e6, max_rounds=5_000_000)
    for w in writers:
        w.close()
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    return overs


def _inputs_by_step(net) -> dict:
    """{step: {seat: input}} of every STEP message sent, and the send order."""
    out: dict = {}
    order = []
    for i, raw in net.sent_log:
        env = open_envelope(raw, 1200)
        if env.mtype != MSG_STEP:
            continue
        b = decode_step_body(env.body)
        out.setdefault(b.step, {})[b.seat] = b.input
        order.append((b.step, b.seat, b.input))
    return out, order


def test_auction_rounds_are_committed_then_opened_and_the_game_verifies(tmp_path):
    sessions, writers = _sessions(tmp_path, 3)
    net = PatientNet(sessions, _bot, patient=2)
    overs = _finish(net, writers, tmp_path)
    assert all(len(o) == 1 for o in overs) and len({(o[0].final_hash, o[0].steps) for o in overs}) == 1
    applied = [e for e in net.events[0] if isinstance(e, StepApplied)]
    commits = [e.step for e in applied if e.kind == "sealed"]
    assert len(commits) >= 3
    msgs, order = _inputs_by_step(net)
    for k in commits:
        assert all(x is None or (type(x) is bytes and len(x) == 32) for x in msgs[k].values())
        assert all(x is None or (type(x) is list and len(x) == 2 and len(x[1]) == SALT_LEN)
                   for x in msgs[k + 1].values())
        # Nobody's opening went out before every seat's commitment had.
        first_open = min(i for i, (st, _, x) in enumerate(order) if st == k + 1 and x is not None)
        assert all(i < first_open for i, (st, _, _) in enumerate(order) if st == k)
    # The patient seat waited for every other message at each simultaneous step: all it held
    # of a sealed step was commitments, never a bid.
    assert net.seen
    for step, held in net.seen:
        assert not any(type(x) is list and x and x[0] == Bid.CODE for x in held), (step, held)
        if step in commits:
            assert all(type(x) is bytes for x in held if x is not None)
    for i in range(3):
        rep = verify_log(tmp_path / f"{i}.log", engine=E)
        assert rep.ok and rep.complete, rep.error
        assert rep.final_state_hash == overs[0][0].final_hash.hex()


def test_a_wrong_opening_is_proven_and_the_others_finish(tmp_path):
    """Seat 2 opens something else than it committed to, at its first open step: every other
    peer names it from the two signed messages; with seat loss on it loses its seat and the
    honest peers finish the same game."""
    sessions, writers = _sessions(tmp_path, 3, options={"p2p.on_drop": "bot", "p2p.drop_timeout": 5})
    liar = sessions[2]
    real = liar.sealed.opening
    lied = []

    def opening():
        o = real()
        if o is None or lied:
            return o
        lied.append(liar.step)
        return [[4, 9999], o[1]]  # Bid(9999), not what it committed to
    liar.sealed.opening = opening
    net = Net(sessions, _bot)
    net.run(max_time=1e6, max_rounds=5_000_000)
    for w in writers:
        w.close()
    assert lied
    for i in (0, 1):
        proven = [e for e in net.events[i] if isinstance(e, CheaterProven)]
        assert proven and proven[0].seat == 2 and proven[0].step == lied[0], proven
        assert "opening does not match" in proven[0].reason
    overs = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in (0, 1)]
    assert all(len(o) == 1 for o in overs) and overs[0][0].final_hash == overs[1][0].final_hash
    rep = verify_log(tmp_path / "0.log", engine=E)
    assert rep.ok and rep.complete, rep.error


def test_a_withdrawn_opening_counts_as_a_pass(tmp_path):
    """Seat 1 sends nil instead of its opening at every open step (§C13.3: it withdraws); no
    fault, the game ends the same on every peer and verifies."""
    sessions, writers = _sessions(tmp_path, 3)
    sessions[1].sealed.opening = lambda: None
    net = Net(sessions, _bot)
    overs = _finish(net, writers, tmp_path)
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1
    assert not any(isinstance(e, CheaterProven) for evs in net.events for e in evs)
    msgs, _ = _inputs_by_step(net)
    commits = [e.step for e in net.events[0] if isinstance(e, StepApplied) and e.kind == "sealed"]
    assert commits and all(msgs[k + 1][1] is None for k in commits)
    rep = verify_log(tmp_path / "2.log", engine=E)
    assert rep.ok and rep.complete, rep.error


class IdleNet(Net):
    """Seat ``idle`` stops deciding from step ``at`` on (its peer runs and sends ALIVE: a player
    who stalls); the others' players press the vote key as soon as the game waits for it."""

    def __init__(self, sessions, choose, idle: int, at: int, **kw) -> None:
        super().__init__(sessions, choose, **kw)
        self.idle, self.at = idle, at
        self.voted_at: float | None = None
        self.dropped_at: float | None = None

    def thinks(self, seat: int, s) -> bool:
        return s.my_seat == self.idle and s.step >= self.at

    def inputs(self) -> bool:
        moved = super().inputs()
        for s in self.s:
            if s.my_seat != self.idle and s.step >= self.at and self.idle in s.waiting_for():
                if s.vote_out(self.idle, self.now):
                    self.voted_at = self.now if self.voted_at is None else self.voted_at
                    moved = True
        if self.dropped_at is None and not self.s[0].active[self.idle]:
            self.dropped_at = self.now
        return moved


def test_a_majority_votes_an_idle_seat_out_long_before_the_turn_time(tmp_path):
    """Issue 10 'no stalling': seat 2 keeps its peer alive (ALIVE) but never decides again; the
    two other players vote it out (LockstepSession.vote_out, the UI's j key) at once instead of
    waiting for the 300 s turn time; the quorum (2 of 3) drops it, the bot plays it and the
    game ends the same on both honest peers."""
    sessions, writers = _sessions(tmp_path, 3, options={"p2p.on_drop": "bot", "p2p.drop_timeout": 30})
    assert sessions[0].turn_time == 300
    net = IdleNet(sessions, _bot, idle=2, at=15)
    net.run(max_time=1e6, max_rounds=5_000_000)
    for w in writers:
        w.close()
    assert net.voted_at is not None and net.dropped_at is not None
    assert net.dropped_at - net.voted_at < 1.0  # virtual seconds: no timeout was waited for
    assert not sessions[0].vote_out(1)  # seat 1 is not awaited: nothing to vote on
    overs = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in (0, 1)]
    assert all(len(o) == 1 for o in overs) and overs[0][0].final_hash == overs[1][0].final_hash
    rep = verify_log(tmp_path / "0.log", engine=E)
    assert rep.ok and rep.complete, rep.error


def test_a_peer_restarted_at_an_open_step_sends_the_same_opening_again(tmp_path):
    """§C13.4: seat 1 dies at its first open step after sending its opening, and its own-message
    log lost that record. Restarted from its game log, it derives its salt again, finds its
    committed bid among the inputs it could have sent and signs the very same opening (Ed25519
    is deterministic): no equivocation, and the game ends the same on every peer."""
    from p2p.gamelog import LogReader
    from p2p.resume import resume_session
    from p2p.sealed import OPEN

    sessions, paths, secret = _logged_sessions(tmp_path)
    st: dict = {"opened": None, "restarted": False}

    def hook(net):
        s = net.s[1]
        if st["opened"] is None and s is not None and s.sealed.phase == OPEN and s.steps.has_own(s.step) \
                and type(s.steps.held(s.step, 1).body.input) is list:
            st["opened"] = (s.step, s.steps.own(s.step))
            s.log.close()
            s.own_log.close()
            own = str(paths[1]) + ".own"
            reader = LogReader(own)
            last = [r.offset for r in reader][-1]
            with open(own, "r+b") as f:
                f.truncate(last)  # the opening's record never reached the disk
            net.s[1] = None
            return net.now + 1.0
        if st["opened"] is not None and not st["restarted"]:
            s2, rep = resume_session(paths[1], sessions[1].identity, secret, E,
                                     own_log_path=str(paths[1]) + ".own", now=net.now)
            assert rep.damage is None and s2.step == st["opened"][0]
            net.s[1] = s2
            st["restarted"] = True
            st["again"] = s2.steps.own(s2.step)
        return None

    net = Net(list(sessions), _bot)
    net.run(max_time=1e6, max_rounds=5_000_000, hook=hook)
    assert st["restarted"] and st["again"] == st["opened"][1]  # byte for byte the same opening
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1
    assert not any(isinstance(e, CheaterProven) for evs in net.events for e in evs)
    for p in paths:
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, rep.error


def _restart_from_a_damaged_log(tmp_path, crash_when, choose_after=None, arm=None):
    """Seat 1 of a classico game is killed at the step ``crash_when(session, st)`` names (its own message
    of that step already sent and in its own-message log); a byte of its game log some steps back
    is flipped, so the replay stops there and the lost steps come back by catch-up (§C9, §C10).
    ``choose_after``: the bot of the restarted seat 1 (a person may choose differently the
    second time). ``arm`` (a sealed phase, PLAIN or COMMIT): the crash step is seat 1's first
    decision after step 12 in that phase that is not nil, and seat 2 never gets that message (only seat 0 holds it: the step stays open).
    Returns (crash step, its first message, the restarted session's message of
    that step, net)."""
    from p2p.gamelog import LogReader
    from p2p.resume import resume_session

    sessions, paths, secret = _logged_sessions(tmp_path)
    st: dict = {"crash": None, "restarted": None}

    def choose(s):
        if st["restarted"] is not None and s is st["restarted"] and choose_after is not None:
            return choose_after(s)
        a = _bot(s)
        if s is sessions[1] and s.sealed.phase == arm and s.step > 12 and a is not None and "arm" not in st:
            st["arm"] = s.step
        return a

    def drop(src, dst, raw):
        return src == 1 and dst == 2 and "arm" in st and st["crash"] is None

    def hook(net):
        s = net.s[1]
        k = None if st["crash"] is not None or s is None or s.step <= 12 else crash_when(s, st)
        if k is not None:
            st["crash"] = (k, s.steps.own(k))
            s.log.close()
            s.own_log.close()
            recs = list(LogReader(paths[1]))
            data = bytearray(paths[1].read_bytes())
            data[recs[-8].offset + 30] ^= 0x40  # a record some steps back: replay stops there
            paths[1].write_bytes(bytes(data))
            net.s[1] = None
            return net.now + 1.0
        if st["crash"] is not None and st["restarted"] is None:
            s2, rep = resume_session(paths[1], sessions[1].identity, secret, E,
                                     own_log_path=str(paths[1]) + ".own", now=net.now)
            assert rep.damage is not None and s2.step < st["crash"][0]
            net.s[1] = st["restarted"] = s2
        if st["restarted"] is not None and "again" not in st and net.s[1].steps.keeps(st["crash"][0]):
            held = net.s[1].steps.held(st["crash"][0], 1)
            if held is not None:
                st["again"] = held.env.raw
        return None

    net = Net(list(sessions), choose, drop=drop)
    net.run(max_time=1e6, max_rounds=5_000_000, hook=hook)
    return st["crash"][0], st["crash"][1], st.get("again"), net


def _agreed_and_honest(net):
    assert not any(isinstance(e, CheaterProven) for evs in net.events for e in evs)
    assert all(s.halt_reason is None for s in net.s), [s.halt_reason for s in net.s]
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1


def test_a_peer_restarted_from_a_damaged_log_at_an_open_step_opens_the_same_again(tmp_path):
    """Regression (e2e test_restart[flipped] convicted an honest peer of equivocation): seat 1
    is killed after sending its opening; its game log is cut steps earlier, so it reaches the
    open step again by catch-up, not by replay. It must send the very same opening (from its
    own-message log, or recovered from its commitment), never nil: the others hold the first."""
    from p2p.sealed import OPEN

    k, first, again, net = _restart_from_a_damaged_log(
        tmp_path, lambda s, st: s.step if s.sealed.phase == OPEN and s.steps.has_own(s.step)
        and type(s.steps.held(s.step, 1).body.input) is list else None)
    assert again == first  # byte for byte
    _agreed_and_honest(net)


@pytest.mark.parametrize("phase", ["plain", "commit"])
def test_a_peer_restarted_from_a_damaged_log_resends_its_recorded_decision(tmp_path, phase):
    """Same at a plain decision step and at a sealed commit step, with a player who would
    choose otherwise the second time: the recorded bytes are re-sent (write-ahead own-message
    log, §C10), no second message is signed for the step."""
    from p2p.sealed import COMMIT, PLAIN

    first_asked: list[int] = []

    def other_choice(s):
        # Otherwise at the steps right after the restart (where the recorded decisions lie),
        # then the bot again: a player deviating for ever can keep the game from ending within
        # the harness's short hash chain (BeaconExhausted).
        first_asked.append(s.step)
        mine = _bot(s)
        if s.step > first_asked[0] + 16:
            return mine
        la = E.legal_actions(s.state, s.my_seat)
        return next((a for a in la if a != mine), mine)

    k, first, again, net = _restart_from_a_damaged_log(
        tmp_path, lambda s, st: st.get("arm"), choose_after=other_choice,
        arm={"plain": PLAIN, "commit": COMMIT}[phase])
    assert again == first
    _agreed_and_honest(net)
