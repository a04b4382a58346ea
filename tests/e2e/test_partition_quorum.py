"""End to end, real processes (on the loopback of a network namespace of their own when the
machine can make one, else on the machine's: conftest.py partition_demo): a two-seat game cut in
two for longer than the drop timeout no longer forks (issue 9 item 7; protocol.md §C8.3 quorum,
§N5 pause).

``lanopoli demo --peers 2 --seed 5 --partition 0.05:8 --drop-timeout 3`` used to end "DISAGREE":
each peer voted the other out with its own vote, played on with a bot and both logs verified.
Now Q = 2 of 2 seats, so nobody is dropped: both peers pause for the 8 s partition and the game
goes on from the same step when it heals. Checked: the demo printed that a peer waited (the cut
fell inside the game: partitions count from the game's start, §N6); on the logs: no DROP record anywhere, every
step record byte-identical on both peers, both logs complete with the same final state.
"""

from __future__ import annotations

import re

from p2p.gamelog import KIND_DROP, KIND_STEP, LogReader
from p2p.verify import verify_log

from e2e_support import WAITING_LINE

HASH_LINE = re.compile(r"^final state hash: ([0-9a-f]{64})$", re.M)


def test_two_seat_partition_longer_than_the_drop_timeout_pauses_and_agrees(partition_demo):
    proc, log_dir = partition_demo  # e2e_support.PARTITION_DEMO, played once for this and attack 7
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
    assert "All 2 peers finished with the same final state." in proc.stdout
    assert WAITING_LINE.search(proc.stderr), f"no peer waited: the partition missed the game\n{proc.stderr}"
    logs = sorted(log_dir.glob("peer-*/game-*-seat*.log"))
    assert len(logs) == 2
    kinds = [[r.kind for r in LogReader(p)] for p in logs]
    assert all(KIND_DROP not in k for k in kinds), "a seat was dropped: the two sides could fork"
    steps = [[r.payload for r in LogReader(p) if r.kind == KIND_STEP] for p in logs]
    assert steps[0] == steps[1]
    reps = [verify_log(p) for p in logs]
    assert all(r.ok and r.complete for r in reps), [r.error for r in reps]
    assert reps[0].final_state_hash == reps[1].final_state_hash == HASH_LINE.search(proc.stdout).group(1)
