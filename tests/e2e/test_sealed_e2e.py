"""Issue 10, "How it is checked": the patient bidder with real peer processes. A peer patched to
wait until it holds the other seats' messages of an auction round before it chooses its bid
(tests/e2e/hostile_peer.py ``--patient``) never holds another seat's bid: at a step where two
or more seats bid it holds only their commitments (protocol.md §C13), so it bids like anybody
else. The game ends with one final hash on every peer and every log verifies.

Runs in a test-made network namespace (tests/e2e/spoof.py ``Netns``) like test_attacks.py, so
fixed seeds cannot meet anybody else's game; skips where namespaces are impossible.
"""

from __future__ import annotations

import pytest

import spoof
from test_attacks import Table, done_of, seeds, verify_json

AVAILABLE, WHY_NOT = spoof.available()
pytestmark = pytest.mark.skipif(not AVAILABLE, reason=WHY_NOT)


@pytest.fixture
def ns():
    with spoof.Netns() as n:
        yield n


def test_a_patient_bidder_holds_only_commitments(spawn, ns, tmp_path):
    s = seeds("patient", 3)
    t = Table(spawn, ns, tmp_path, "patient")
    t.cli_host(s[0], 3)
    t.cli_join(s[1])
    patient = t.hostile_join(s[2], "--patient")
    codes = t.finish()
    assert codes == [0, 0, 0], [p.stderr[-5:] for p in t.procs]
    dones = [done_of(p) for p in t.procs]
    assert None not in dones and len({d["final_state_hash"] for d in dones}) == 1
    waits = patient.of_type("patient")
    rounds = [w for w in waits if w["kind"] == "auction_bid"]
    assert rounds, "the patient seat never bid in a round with another bidder"
    for w in rounds:
        # It waited until it held both other seats' messages of the round: commitments only.
        assert w["others"] == 2 and w["commitments"] == 2 and w["bids"] == [], w
    for d in t.dirs:
        (log,) = d.glob("game-*.log")
        rep = verify_json(log)
        assert rep["ok"] and rep["complete"], rep
