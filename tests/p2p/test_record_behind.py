"""A step's record is written before our message of the next step (protocol.md §C6, §C8.3 'A
voter's promise', §C10): the record of step k goes to the log and the catch-up history, then
our step-(k+1) message to the own-message log, then it is sent. So a peer killed right after
sending its message resumes at the step that message is of (the log holds every step before
it) and re-sends it byte for byte: it never finds itself at step k having signed k+1, where it
could vote at k against a seat whose message its k+1 covers (H105's ef40cee wrote the record
after the message and was taken back for that: H117's review #2, H118)."""

from __future__ import annotations

from pathlib import Path

import engine as E
from p2p.lockstep import CheaterProven, GameOver
from p2p.resume import resume_session
from p2p.verify import verify_log

from p2p_harness import Net
from test_sealed_session import _bot, _logged_sessions


def test_the_last_steps_record_is_written_before_our_message_and_a_crash_right_after_it_resumes_there(tmp_path):
    sessions, paths, secret = _logged_sessions(tmp_path)  # 3 seats, game and own-message logs
    own_path = Path(str(paths[1]) + ".own")
    first = sessions[1]
    st: dict = {"seen": [], "snap": None, "restarted": None, "report": None}

    def on_sent() -> None:
        """Seat 1's message of its current step is written ahead and sent. At a plain chance
        step (made as the step begins) and at a decision step (made when the bot answers) alike
        the log already holds the last step's record. At the first plain chance step after step
        12 the files are kept as a crash now would leave them."""
        if first.phase != "running" or first.replaying:
            return
        st["seen"].append((first.own.plain_chance(), first.step - first.log.steps))
        if st["snap"] is None and first.step > 12 and first.own.plain_chance():
            st["snap"] = (first.step, first.steps.own(first.step), paths[1].read_bytes(), own_path.read_bytes())

    first.own.on_sent = on_sent

    def hook(net):
        if st["snap"] is not None and net.s[1] is first:
            first.log.close()
            first.own_log.close()
            paths[1].write_bytes(st["snap"][2])  # the files of a peer killed right after its message
            own_path.write_bytes(st["snap"][3])
            net.s[1] = None
            return net.now + 1.0
        if net.s[1] is None:
            s2, rep = resume_session(paths[1], first.identity, secret, E, own_log_path=str(own_path), now=net.now)
            net.s[1] = st["restarted"] = s2
            st["report"] = rep
            st["again"] = s2.steps.own(s2.step)
        return None

    net = Net(list(sessions), _bot)
    net.run(max_time=1e6, max_rounds=5_000_000, hook=hook)
    assert {plain for plain, _ in st["seen"]} == {True, False}  # both kinds of step were seen
    assert {lag for _, lag in st["seen"]} == {0}, "a message left before the last step's record"
    rep = st["report"]
    assert rep.damage is None and rep.steps == st["snap"][0] and rep.own_resent  # resumed at its step
    assert st["again"] == st["snap"][1]  # byte for byte: nothing signed twice (§C10)
    assert not any(isinstance(e, CheaterProven) for evs in net.events for e in evs)
    assert all(s.halt_reason is None for s in net.s), [s.halt_reason for s in net.s]
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1
    for i, p in enumerate(paths):
        net.s[i].log.close()
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, rep.error
