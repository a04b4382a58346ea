"""Issue 10, "How it is checked": the spiteful niente-e-come-sembra seat of each kind — it lies
in an inspection's public opening, sends a holder a wrong encrypted share, files a false
complaint, or seals a share under a foreign key and then withholds the public re-opening it owes
— loses its seat, and the three honest peers finish with the same final hash and logs
that ``lanopoli verify`` accepts (protocol.md §C8.8 kind 4, §C12.4-§C12.6).

Real peer processes: three ``lanopoli host/join --progress-json`` and one
tests/e2e/hostile_peer.py with ``--attack wrong-opening | wrong-delivery | false-complaint |
foreign-key``, in a network namespace made by the test (tests/e2e/spoof.py ``Netns``; helpers of
test_attacks.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import spoof
from e2e_support import spawner
from p2p.verify import verify_log
from test_attacks import AVAILABLE, WHY_NOT, Table, done_of, seeds, verify_json
from test_attacks_session import blamed_seats, seats_of

pytestmark = pytest.mark.skipif(not AVAILABLE, reason=WHY_NOT)

ED = "niente-e-come-sembra"


@pytest.mark.parametrize("lie, attack_at", [("wrong-opening", 0), ("wrong-delivery", 3), ("false-complaint", 3),
                                            ("foreign-key", 3)])
def test_a_spiteful_niente_seat_loses_its_seat_and_the_others_finish(tmp_path, lie, attack_at):
    with spoof.Netns() as ns, spawner() as spawn:  # the peers are killed before the namespace goes
        s = seeds(f"niente-{lie}", 4)
        t = Table(spawn, ns, tmp_path, lie)
        t.cli_host(s[0], 4, "--edition", ED, "--on-drop", "bot", "--drop-timeout", "20")
        t.cli_join(s[1])
        t.cli_join(s[2])
        liar = t.hostile_join(s[3], "--attack", lie, "--attack-at", str(attack_at))
        t.finish()
    attack = liar.of_type("attack")
    assert attack and attack[0]["kind"] == lie, liar.stderr[-5:]
    cheat_seat = seats_of(t)[3]
    honest = t.procs[:3]
    for p in honest:
        assert done_of(p) is not None, (p.of_type("error"), p.stderr[-5:])
    assert len({done_of(p)["final_state_hash"] for p in honest}) == 1
    for p in honest:
        assert blamed_seats(p) == {cheat_seat}, (p.of_type("seat_dropped"), p.of_type("error"))
        assert all(v["seat"] == cheat_seat for v in p.of_type("drop_vote"))
        rep = verify_log(Path(done_of(p)["log"]))
        assert rep.ok and rep.complete, rep.error
        assert {c["seat"] for c in rep.cheaters} == {cheat_seat}, rep.cheaters
    v = verify_json(done_of(honest[0])["log"])
    assert v["ok"] and v["complete"] and {c["seat"] for c in v["cheaters"]} == {cheat_seat}, v
