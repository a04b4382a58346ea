"""A step's record is written after our message of the next step (issue 14, H105; protocol.md
§C6 'Record behind our message', §C10): where the session makes that message while it enters
the step (a chance step's reveal), the node sends it at once (``OwnStep.on_sent``) and only
then is the record of the step before written to the log and the catch-up history. A peer
killed between the two resumes from its files as they were: the replay ends a step earlier, its
own-message log holds its message of the step after, re-sent byte for byte when the catch-up
brings it there."""

from __future__ import annotations

from pathlib import Path

import engine as E
from p2p.lockstep import CheaterProven, GameOver
from p2p.resume import resume_session
from p2p.verify import verify_log

from p2p_harness import Net
from test_sealed_session import _bot, _logged_sessions


def test_our_message_leaves_before_the_last_steps_record_and_a_crash_between_them_resumes(tmp_path):
    sessions, paths, secret = _logged_sessions(tmp_path)  # 3 seats, game and own-message logs
    own_path = Path(str(paths[1]) + ".own")
    first = sessions[1]
    st: dict = {"seen": [], "snap": None, "restarted": None, "again": None}

    def on_sent() -> None:
        """Seat 1's message of its current step is made. At a plain chance step (made as the
        step begins) the log lacks the last step's record still; at a decision step (made
        when the bot answers, after the handling) it has it. At the first plain chance step
        after step 12 the files are kept as a crash now would leave them."""
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
            assert rep.damage is None and s2.step == st["snap"][0] - 1  # the last step's record was not written
            net.s[1] = st["restarted"] = s2
        s2 = st["restarted"]
        if s2 is not None and st["again"] is None and s2.steps.keeps(st["snap"][0]):
            held = s2.steps.held(st["snap"][0], 1)
            if held is not None:
                st["again"] = held.env.raw
        return None

    net = Net(list(sessions), _bot)
    net.run(max_time=1e6, max_rounds=5_000_000, hook=hook)
    behind = {lag for plain, lag in st["seen"] if plain}
    assert behind == {1}, "our reveal left after the last step's record"
    assert {lag for plain, lag in st["seen"] if not plain} == {0}
    assert st["again"] == st["snap"][1]  # byte for byte: nothing signed twice (§C10)
    assert not any(isinstance(e, CheaterProven) for evs in net.events for e in evs)
    assert all(s.halt_reason is None for s in net.s), [s.halt_reason for s in net.s]
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1
    for p in paths:
        net.s[paths.index(p)].log.close()
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, rep.error
