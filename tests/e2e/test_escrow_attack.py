"""Issue 10, "How it is checked": the spiteful seat that deals a bad escrow and withholds its reveal
at a chance step loses its seat; the honest peers finish with one final hash and logs that verify
(protocol.md §C8.3, §C8.5). Real peer processes in a network namespace made by the test
(tests/e2e/spoof.py ``Netns``); the table and helpers are those of test_attacks.py. With two seats
nobody can be dropped: the withholder only turns the game into an abandoned one (last test; in
memory also in tests/p2p/test_escrow.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import spoof
from e2e_support import spawner
from p2p.escrow import BAD_RECOMBINATION
from p2p.identity import Identity
from p2p.verify import verify_log
from test_attacks import AVAILABLE, PEER_S, WHY_NOT, Table, done_of, seeds, verify_json

pytestmark = pytest.mark.skipif(not AVAILABLE, reason=WHY_NOT)


@pytest.fixture(scope="module")
def bad_escrow_game(tmp_path_factory, withholder_table):
    """4 seats (Q = 3): the hostile joiner deals bad escrows; at each chance step >= 5 it holds
    its reveal until it holds the 3 others', compares the beacon of its reveal with that of its
    stand-in, and withholds (silent for good) at the first step it prefers the stand-in.
    Returns (table, its ``attack`` line, its seat). Requests ``withholder_table`` (tests/e2e/conftest.py,
    started with the session's first end-to-end test) only so that the two-seat game's idle stall
    overlaps this one also when this module runs alone."""
    with spoof.Netns() as n, spawner() as spawn:  # the peers are killed before the namespace goes
        s = seeds("escrow", 4)
        t = Table(spawn, n, tmp_path_factory.mktemp("escrow"), "escrow")
        t.cli_host(s[0], 4, "--drop-timeout", "2")
        t.cli_join(s[1])
        t.cli_join(s[2])
        cheater = t.hostile_join(s[3], "--attack", "bad-escrow", "--attack-at", "5")
        # The honest peers' ends only: the withholder, silent for good, would run on to its
        # --timeout (40 s) and nothing is checked on its exit (killed with the namespace).
        for p in t.procs[:3]:
            p.finish(PEER_S + 30)
        keys = sorted(Identity.from_seed(x.encode()).public_key for x in s)
        seat = keys.index(Identity.from_seed(s[3].encode()).public_key)  # players by key (§C2.2)
        yield t, cheater.wait_for(lambda m: m["type"] == "attack", 1), seat


def test_the_bad_dealer_is_dropped_at_the_withheld_step_and_the_honest_peers_agree(bad_escrow_game):
    t, attack, cheat_seat = bad_escrow_game
    k = attack["step"]
    assert attack["held"] == 3 and attack["chose"] == "stand-in"  # it chose after seeing every reveal
    honest = t.procs[:3]
    for p in honest:
        assert done_of(p) is not None, p.of_type("error")  # nobody halted
        drops = [(m["step"], m["seat"], m["reconstructed"]) for m in p.of_type("seat_dropped")]
        assert drops == [(k, cheat_seat, False)], drops  # the stand-in: the shares open nothing
        assert all(v["seat"] == cheat_seat for v in p.of_type("drop_vote"))
        assert [(c["step"], c["seat"], c["reason"]) for c in p.of_type("cheater")] == \
            [(k, cheat_seat, BAD_RECOMBINATION)]  # the players are told why
    assert len({done_of(p)["final_state_hash"] for p in honest}) == 1


def test_every_honest_log_verifies_and_names_the_bad_escrow(bad_escrow_game):
    t, attack, cheat_seat = bad_escrow_game
    for p in t.procs[:3]:
        log = Path(done_of(p)["log"])
        rep = verify_log(log)
        assert rep.ok and rep.complete, rep.error
        assert rep.cheaters == [{"seat": cheat_seat, "step": attack["step"], "reason": BAD_RECOMBINATION,
                                 "complainer": None}]
        v = verify_json(log)
        assert v["ok"] and v["complete"] and [c["seat"] for c in v["cheaters"]] == [cheat_seat]


def test_two_seats_the_withholder_turns_the_roll_into_an_abandoned_game(withholder_table):
    """§C8.5 "Where nobody can be dropped": 2 seats (Q = 2), no escrow, no drop. The hostile
    joiner withholds its reveal at a chance step >= 5 whose outcome it dislikes; the host pauses naming it, never
    votes, and after the node's stall limit (``p2p.node.STALL_LIMIT``, 60 s) ends the game as
    abandoned: no winner, its log valid and not complete. That is all a two-seat withholder
    gains: no other roll, only a game without a result, as if it had left."""
    host, cheater, s = withholder_table
    host.finish(200)
    attack = cheater.wait_for(lambda m: m["type"] == "attack", 1)
    assert attack["held"] == 1  # it held the host's reveal when it chose
    keys = sorted(Identity.from_seed(x.encode()).public_key for x in s)
    me, other = (keys.index(Identity.from_seed(x.encode()).public_key) for x in s)
    done = done_of(host)
    assert done is not None and done["winner"] is None, host.of_type("error")
    assert done["abandoned"]["seat"] == me and done["abandoned"]["step"] == attack["step"]
    assert not host.of_type("drop_vote") and not host.of_type("seat_dropped")
    assert any(w["paused"] and w["seats"] == [other] for w in host.of_type("waiting"))
    rep = verify_log(Path(done["log"]))
    assert rep.ok and not rep.complete and rep.abandoned == {"seat": me, "step": attack["step"]}
