"""``verify`` replays a dropped seat with the default bot even in an interpreter that never
imported ``engine.bots`` (protocol.md §C8.4: "Decision step, rule `bot`: engine.bots.choose(state,
seat, "default")"; §6: verify_log replays "dropped seats played as in §8.4").

``engine`` does not import its bots subpackage, so ``p2p.drop_rules.default_bot`` must import it
itself: a verifier that looked only for the attribute ``engine.bots`` would replay the dropped
seat as "always nothing" in a fresh ``lanopoli verify`` process and call a good log bad.
"""

from __future__ import annotations

import json
import subprocess
import sys

import engine as E
from engine import bots
from p2p import const as C
from p2p.gamelog import KIND_DROP, LogReader, LogWriter
from p2p.lockstep import GameOver, SeatDropped

from p2p_harness import Net, make_lobbies, pump_lobbies

#: Run in a fresh interpreter: verify a log, say whether engine.bots was imported before.
VERIFY_IN_FRESH_PROCESS = """
import json, sys
from p2p.verify import verify_log
before = "engine.bots" in sys.modules
rep = verify_log(sys.argv[1])
print(json.dumps({"bots_before": before, "ok": rep.ok, "complete": rep.complete, "error": rep.error,
                  "final": rep.final_state_hash}))
"""


def test_verify_replays_a_dropped_seat_in_a_process_that_never_imported_the_bots(tmp_path):
    lobbies = make_lobbies(3, edition="classico", options={C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 5})
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda l: l.my_seat)
    paths = [tmp_path / f"seat{i}.log" for i in range(3)]
    writers = [LogWriter(p, l.log_header()) for p, l in zip(paths, ordered)]
    sessions = [l.start_session(E, log=w) for l, w in zip(ordered, writers)]
    net = Net(list(sessions), lambda s: bots.choose(s.state, s.my_seat, "default"))

    def silence_seat_1(net):
        if net.s[1] is not None and net.s[1].step >= 12:
            net.s[1] = None  # the peer of seat 1 is gone for good

    net.run(max_time=1e6, max_rounds=5_000_000, hook=silence_seat_1)
    for w in writers:
        w.close()
    (dropped,) = [e for e in net.events[0] if isinstance(e, SeatDropped)]
    assert dropped.seat == 1 and dropped.rule == "bot"
    (over,) = [e for e in net.events[0] if isinstance(e, GameOver)]
    assert any(rec.kind == KIND_DROP for rec in LogReader(paths[0]))

    proc = subprocess.run([sys.executable, "-c", VERIFY_IN_FRESH_PROCESS, str(paths[0])],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["bots_before"] is False  # the premise: nothing imported the bots for verify
    assert out["ok"] and out["complete"], out["error"]
    assert out["final"] == over.final_hash.hex()
