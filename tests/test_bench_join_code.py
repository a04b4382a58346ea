"""bench/bench_join_code.py's lobby (protocol.md §N3.1): without loss every seat of a 3-seat lobby
of joiners by code starts before any PROBE copy is due (virtual seconds < PROBE_RESEND_S: each
first PROBE is answered at its RESPONSE); at 30% loss a seeded one still starts. Figures are the
bench's job, not this."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import bench_join_code  # noqa: E402
from p2p.join_resend import PROBE_RESEND_S  # noqa: E402


def test_the_lobby_of_joiners_by_code_starts_on_their_first_probes():
    assert bench_join_code.one(0, 3, 0.0) < PROBE_RESEND_S
    assert bench_join_code.one(1, 3, 0.3) is not None
