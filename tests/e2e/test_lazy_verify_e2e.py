"""End to end, signatures checked when used (protocol.md §C3.7): four real peer processes on
loopback play a whole game in which every STEP that arrives on its seat's own keyed channel is
applied without an Ed25519 verify. Checked: every peer deferred signatures (its ``done`` line's
session stats), none was bad, all four ended with one final state hash, and every peer's log is
one that ``lanopoli verify`` accepts, complete (the sweep before the final attestation left no
record unchecked, and none failed)."""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import sys
from pathlib import Path

from p2p.verify import verify_log
from ui.demo import DemoOptions, run_demo

ROOT = Path(__file__).resolve().parents[2]


def test_four_peers_defer_signatures_and_their_logs_verify(tmp_path):
    seed = f"lazy-{os.getpid()}-{secrets.token_hex(4)}"
    opts = DemoOptions(peers=4, seed=seed, edition="classico", log_dir=tmp_path / "logs", timeout_s=240, lang="en")
    keys = tmp_path / "keys"
    keys.mkdir()
    outcome = asyncio.run(run_demo(opts, keys, lambda _peers: None))
    assert outcome.ok, [(p.index, p.returncode, p.error) for p in outcome.peers]
    assert outcome.agreed_hash
    logs = []
    for p in outcome.peers:
        stats = p.done["session_stats"]
        assert stats["deferred"] > 0, stats           # the hot path skipped the verify
        assert stats["bad_signature"] == 0, stats
        logs.append(Path(p.done["log"]))
    for log in logs:
        rep = verify_log(log)
        assert rep.ok and rep.complete, (log, rep.error)
        assert rep.final_state_hash == outcome.agreed_hash
    # The command line says the same of one of them.
    proc = subprocess.run([sys.executable, "-m", "ui.cli", "--lang", "en", "verify", str(logs[0])], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
