"""End to end: ``lanopoli demo`` without ``--seed`` (the README's first command).

Without a seed the host's keys are not derivable, so the demo stores them in the host's
config dir before starting it (``ui.demo.host_public_key``) and gives the joiners the join
code made of them (protocol.md part L, §N3.1): the joiners accept only that key. Real
processes, real UDP, loopback only.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEMO_TIMEOUT_S = 240
LOG_LINE = re.compile(r"^  peer-(\d+) \(seat \d+\): (.+)$", re.M)


def test_a_demo_without_a_seed_joins_by_the_stored_host_key_and_finishes(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "ui.cli", "--lang", "en", "demo", "--peers", "3",
                           "--log-dir", str(tmp_path / "game"), "--timeout", str(DEMO_TIMEOUT_S)],
                          cwd=ROOT, capture_output=True, text=True, timeout=DEMO_TIMEOUT_S + 30)
    assert proc.returncode == 0, f"demo failed\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    assert "All 3 peers finished with the same final state." in proc.stdout
    logs = dict((int(i), Path(p)) for i, p in LOG_LINE.findall(proc.stdout))
    assert sorted(logs) == [0, 1, 2] and len({p.name.split("-seat")[0] for p in logs.values()}) == 1
    verified = subprocess.run([sys.executable, "-m", "ui.cli", "--lang", "en", "verify", str(logs[1])],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert verified.returncode == 0, verified.stdout + verified.stderr
