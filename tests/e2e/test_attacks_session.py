"""Issue 9, "How it is checked", the session items: (4) a cheater gets an honest player evicted
by lying to it alone; (7) a network outage forks a game down to two active seats. Real peer
processes in a network namespace made by the test (tests/e2e/spoof.py ``Netns``); the table and
helpers are those of test_attacks.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import spoof
from e2e_support import WAITING_LINE, spawner
from p2p.identity import Identity
from p2p.verify import verify_log
from test_attacks import AVAILABLE, WHY_NOT, Table, culprits, done_of, seeds, verify_json  # noqa: F401

pytestmark = pytest.mark.skipif(not AVAILABLE, reason=WHY_NOT)


def blamed_seats(p) -> set[int]:
    """Seats a peer acted against: seats it dropped, and the seats its error line accuses."""
    out = {m["seat"] for m in p.of_type("seat_dropped")}
    for e in p.of_type("error"):
        out |= culprits(e.get("message", ""))
    return out


@pytest.fixture(scope="module")
def nil_game(tmp_path_factory):
    """Item 4, played once: 4 seats, the hostile joiner sends input nil instead of its reveal to
    one victim at a chance step >= 5, the real reveal to the others (re-signed with its key).
    Returns (table, the cheater's process, its ``attack`` line)."""
    with spoof.Netns() as n, spawner() as spawn:  # the peers are killed before the namespace goes
        s = seeds("nil", 4)
        t = Table(spawn, n, tmp_path_factory.mktemp("nil"), "nil")
        t.cli_host(s[0], 4, "--drop-timeout", "2")
        t.cli_join(s[1])
        t.cli_join(s[2])
        cheater = t.hostile_join(s[3], "--attack", "nil-reveal", "--attack-at", "5")
        t.finish()
        yield t, cheater, cheater.wait_for(lambda m: m["type"] == "attack", 1)


def seats_of(t: Table) -> list[int]:
    """Each peer's seat, from the keys of its seed (players ordered by public key, §C2.2)."""
    keys = [Identity.from_seed(x.encode()).public_key for x in t.seeds]
    return [sorted(keys).index(k) for k in keys]


def test_4_a_lie_to_one_peer_is_proven_to_all_and_the_cheater_loses_its_seat(nil_game):
    t, cheater, attack = nil_game
    seat = seats_of(t)
    cheat_seat = seat[3]
    assert attack["victim"] != cheat_seat
    honest = t.procs[:3]
    for p in honest:  # every honest player finished, the victim too
        assert done_of(p) is not None, p.of_type("error")
    assert len({done_of(p)["final_state_hash"] for p in honest}) == 1
    for p in honest:
        assert blamed_seats(p) == {cheat_seat}, (p.of_type("seat_dropped"), p.of_type("error"))
        assert all(v["seat"] == cheat_seat for v in p.of_type("drop_vote"))  # nobody votes out the victim
        rep = verify_log(Path(done_of(p)["log"]))
        assert rep.ok and rep.complete, rep.error
        assert {c["seat"] for c in rep.cheaters} == {cheat_seat}, rep.cheaters


def test_4_lanopoli_verify_names_the_cheater(nil_game):
    t, _cheater, _attack = nil_game
    cheat_seat = seats_of(t)[3]
    for p in t.procs[:3]:
        v = verify_json(done_of(p)["log"])
        assert v["ok"] and v["complete"]
        assert [c["seat"] for c in v["cheaters"]] == [cheat_seat], v


def test_7_a_partition_longer_than_the_drop_timeout_does_not_fork_two_seats(partition_demo):
    proc, log_dir = partition_demo  # e2e_support.PARTITION_DEMO in a namespace, played once for this and
    # test_partition_quorum.py
    assert "DISAGREE" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    # The cut-off side waits (no seat is dropped by a minority) and the game goes on from the
    # same step when the partition heals: both finish, agreeing.
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "All 2 peers finished with the same final state." in proc.stdout
    assert WAITING_LINE.search(proc.stderr), proc.stderr  # the cut fell inside the game (§N6)
    logs = sorted(log_dir.glob("peer-*/game-*.log"))
    assert len(logs) == 2
    reports = [verify_json(log) for log in logs]
    assert all(v["ok"] and v["complete"] for v in reports), reports
    assert len({v["final_state_hash"] for v in reports}) == 1
