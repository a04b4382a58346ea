"""Issue 10, "How it is checked", the spiteful kind no other end-to-end test plays: a seat that
EQUIVOCATES at a decision step, with real peer processes (protocol.md §C3.4, §C8.8 kind 1).

The issue's checks and the tests that play them with real peer processes (audit of session 5):

* the patient bidder never holds another seat's bid before it committed its own:
  tests/e2e/test_sealed_e2e.py::test_a_patient_bidder_holds_only_commitments;
* (a) bad escrow + withheld reveal: tests/e2e/test_escrow_attack.py (4 seats: dropped, one final
  hash, logs verify and name it; 2 seats: an abandoned game, §C8.5);
* (b) niente wrong public opening, (c) wrong share sent to a holder, (d) false complaint (and a
  share under a foreign key): tests/e2e/test_hidden_lies.py (parametrized);
* (e) equivocation at a CHANCE step (a nil reveal to one victim, the real one to the others):
  tests/e2e/test_attacks_session.py::test_4_* (the victim proves it, the cheater is dropped);
* (e) equivocation at a DECISION step, two valid inputs: THIS file;
* a majority vote lets an idle seat's turn pass: tests/e2e/test_turn_skip_e2e.py.

Here: 4 seats (Q = 3), seat loss on (``--drop-timeout 2``); tests/e2e/hostile_peer.py
``--attack equivocate`` sends, at the first decision step >= 5 where it acts, input nil to one
victim and its real action to the two other honest peers, both validly signed over the same
history. The victim applies another step than the others (a real fork of one step); the next
step's digests differ and the digest dispute shows both versions (§C3.4).

What holds (asserted): no two honest peers end with different outcomes, every honest peer
names the equivocator and nobody else, and no honest peer votes against anybody else; the
equivocator loses its seat and the three honest peers finish with one final hash and logs that
verify (§C3.4 "Two versions applied": the table keeps the version with the smaller SHA-256,
the peers that applied the other roll back to the step, StepOverturned, and replay it with the
kept one). Before (16 runs at HEAD 66d7b91 / d322de2, a strict xfail): (A, 10 of 16) every peer
halted with ``Equivocation`` at the step; (B, 6 of 16) only the victim halted so and the two
other honest peers stalled at 2 votes of Q = 3 (the equivocator votes against the victim).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import spoof
from e2e_support import spawner
from p2p.verify import verify_log
from test_attacks import AVAILABLE, WHY_NOT, Table, done_of, seeds
from test_attacks_session import blamed_seats, seats_of

pytestmark = pytest.mark.skipif(not AVAILABLE, reason=WHY_NOT)


@pytest.fixture(scope="module")
def equivocation_game(tmp_path_factory):
    """4 seats; the hostile joiner equivocates once at a decision step >= 5 (module docstring).
    Returns (table, its ``attack`` line, its seat)."""
    with spoof.Netns() as n, spawner() as spawn:  # the peers are killed before the namespace goes
        s = seeds("equivocate", 4)
        t = Table(spawn, n, tmp_path_factory.mktemp("equivocate"), "equivocate")
        t.cli_host(s[0], 4, "--drop-timeout", "2")
        t.cli_join(s[1])
        t.cli_join(s[2])
        cheater = t.hostile_join(s[3], "--attack", "equivocate", "--attack-at", "5")
        t.finish()
        yield t, cheater.wait_for(lambda m: m["type"] == "attack", 1), seats_of(t)[3]


def test_an_equivocation_at_a_decision_step_forks_no_honest_peer(equivocation_game):
    t, attack, cheat_seat = equivocation_game
    assert attack["kind"] == "equivocate" and attack["victim"] != cheat_seat and attack["step"] >= 5
    honest = t.procs[:3]
    finals = {done_of(p)["final_state_hash"] for p in honest if done_of(p) is not None}
    assert len(finals) <= 1, finals  # never two outcomes
    for p in honest:
        # named in its error line, or proven ("cheater" line: a complaint it sent or judged)
        named = blamed_seats(p) | {c["seat"] for c in p.of_type("cheater")}
        assert named == {cheat_seat}, (p.of_type("cheater"), p.of_type("error"), p.stderr[-5:])
        assert all(v["seat"] == cheat_seat for v in p.of_type("drop_vote"))


def test_the_equivocator_loses_its_seat_and_the_honest_peers_finish(equivocation_game):
    t, _attack, cheat_seat = equivocation_game
    honest = t.procs[:3]
    for p in honest:
        assert done_of(p) is not None, p.of_type("error")
    assert len({done_of(p)["final_state_hash"] for p in honest}) == 1
    for p in honest:
        assert blamed_seats(p) == {cheat_seat}
        rep = verify_log(Path(done_of(p)["log"]))
        assert rep.ok and rep.complete, rep.error
        assert {c["seat"] for c in rep.cheaters} == {cheat_seat}, rep.cheaters
