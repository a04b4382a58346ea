"""End to end, niente-e-come-sembra: `lanopoli demo --edition niente-e-come-sembra --peers 4`
(real processes, mDNS, UDP on loopback), then `lanopoli verify --json` on a peer's log: every
inspection checked against the seats' commitments and counted (issue "Counterfeit banknotes
and fake Imprevisti cards that nobody can rig or lie about", protocol.md §C12)."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SEED = f"niente-{os.getpid()}-{secrets.token_hex(4)}"
LOG_LINE = re.compile(r"^  peer-(\d+) \(seat (\d+)\): (.+)$", re.M)
TIMEOUT_S = 240


def lanopoli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ui.cli", "--lang", "en", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=TIMEOUT_S + 30)


def test_niente_demo_plays_to_the_end_and_verify_counts_inspections(tmp_path):
    proc = lanopoli("demo", "--edition", "niente-e-come-sembra", "--peers", "4", "--seed", SEED,
                    "--log-dir", str(tmp_path), "--timeout", str(TIMEOUT_S))
    assert proc.returncode == 0, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    logs = [Path(m.group(3)) for m in LOG_LINE.finditer(proc.stdout)]
    assert len(logs) == 4
    for log in logs:
        out = lanopoli("verify", str(log), "--json")
        assert out.returncode == 0, out.stdout + out.stderr
        summary = json.loads(out.stdout)
        h = summary["hidden"]
        assert summary["ok"] and summary["complete"] and summary["edition"] == "niente-e-come-sembra"
        assert h["inspections"] > 0 and h["reveals"] > 0 and h["items_delivered"] >= 4 * 3 * 12
        assert h["inspections"] == summary["events"].get("BillInspected", 0) + summary["events"].get("CardInspected", 0)
        assert 0 <= h["fakes_found"] <= summary["events"].get("BillInspected", 0)
        assert h["fake_cards_caught"] <= summary["events"].get("CardInspected", 0)
        assert summary["winner"] is not None
