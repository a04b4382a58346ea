"""Red team session 13 on main (H149): the final attestation (protocol.md §C3.5) by a seat that
signs two versions of it.

§C3.5 claims: "An attestation with an input, a hidden field, a re-seat field or acks (§C8.2)
names its signer (proven by the logged record alone, as every peer and ``verify`` hold the same
bytes ...) but is logged and ends the game like any other". Nothing after the attestation step
covers it (no step k+2 carries a digest over it), so a seat may send a plain attestation to some
peers and one carrying an input to others, both validly signed with its own key: the game must
still end everywhere with one final hash (what holds); the honest logs differ in that record
alone and the blame in it is per log, never an honest seat (§C3.5, stated after H149 BREAK #1)."""

from __future__ import annotations

import pytest

import fake_engine as E
from p2p.gamelog import LogReader
from p2p.lockstep import CheaterProven, GameOver, SeatDropped
from p2p.verify import verify_log
from p2p.wire import MSG_STEP, seal

from p2p_harness import random_legal
from redteam_auth_kit import KeyedNet, step_of
from test_final_attestation_garbled import OPTS, _final_step  # the attestation's step of the honest game
from test_resilience import logged_game


def _two_versions(tmp_path, n, seed):
    """Run the game with seat n-1 sending victim 1 an attestation with an input, the others its
    plain one. Returns (net, paths)."""
    g, v = n - 1, 1
    final = _final_step(tmp_path / "dry", n, seed)
    sessions, paths, _, _ = logged_game(tmp_path, n, OPTS)

    def lie(src, dst, raw):
        if src != g or dst != v:
            return None
        b = step_of(raw)
        if b.step != final:
            return None
        return seal(sessions[g].identity, MSG_STEP, [b.game_id, b.step, g, b.prev_hash, b.prev_digest, [1]])

    net = KeyedNet(list(sessions), random_legal(E, seed=seed), lie=lie)
    net.run(max_time=200.0)
    assert net.lies
    return net, paths


@pytest.mark.parametrize("n,seed", [(4, 2), (3, 1)])
def test_two_signed_final_attestations_still_end_the_game_with_one_final_hash(tmp_path, n, seed):
    """§C3.5 (what holds): both versions are logged and end the game; every seat (the liar
    included) reports GameOver once, one final hash, every honest log verifies complete."""
    net, paths = _two_versions(tmp_path, n, seed)
    overs = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in range(n)]
    assert all(len(o) == 1 for o in overs), net.describe()
    assert len({o[0].final_hash for o in overs}) == 1
    for i in range(n - 1):
        net.s[i].log.close()
        rep = verify_log(paths[i], engine=E)
        assert rep.ok and rep.complete, (i, rep.first_bad_step, rep.error)


@pytest.mark.parametrize("n,seed", [(4, 2), (3, 1)])
def test_two_signed_final_attestations_blame_per_log_never_an_honest_seat(tmp_path, n, seed):
    """§C3.5 'The blame is per log' (H149 BREAK #1, stated by H152): nothing covers the
    attestation step, so the honest logs of one game are the same bytes up to their last record
    (the kind-1 attestation record) and differ only there: the victim's record holds the signed
    version with an input and names the liar, the others' the plain one and name nobody. Never an
    honest seat: every named seat is the liar, and every log verifies complete."""
    net, paths = _two_versions(tmp_path, n, seed)
    g, v = n - 1, 1
    for i in range(n - 1):
        net.s[i].log.close()
    reps = [verify_log(paths[i], engine=E) for i in range(n - 1)]
    assert all(r.ok and r.complete for r in reps), [(r.first_bad_step, r.error) for r in reps]
    named = [[c["seat"] for c in r.cheaters] for r in reps]
    assert named == [[g] if i == v else [] for i in range(n - 1)], named
    lasts = [list(LogReader(paths[i]))[-1] for i in range(n - 1)]
    assert len({last.offset for last in lasts}) == 1  # one prefix length: the same records before it
    assert len({paths[i].read_bytes()[:lasts[0].offset] for i in range(n - 1)}) == 1
    assert len({last.payload for last in lasts}) == 2  # the last record: the victim's alone differs


@pytest.mark.parametrize("field", ["hash", "digest"])
@pytest.mark.parametrize("n,victims", [(4, (1,)), (4, (1, 2)), (3, (1,))])
def test_a_final_attestation_over_another_history_to_some_peers_ends_the_game_everywhere(tmp_path, field, n, victims):
    """§C3.5 / §C3.4 'One seat's word': the liar signs its attestation over a wrong final state hash
    (or digest) for ``victims`` (one, or a majority of the honest peers), its real one for the
    others. A lone wrong attestation is refused (named), the real one comes from a finished peer's
    records (§C3.5): every seat ends once with one final hash, nobody dropped or proven, every
    honest log verifies complete and names nobody."""
    g, seed = n - 1, 2
    final = _final_step(tmp_path / "dry", n, seed)
    sessions, paths, _, _ = logged_game(tmp_path, n, OPTS)

    def lie(src, dst, raw):
        if src != g or dst not in victims or step_of(raw).step != final:
            return None
        b = step_of(raw)
        ph, pd = (bytes(32), b.prev_digest) if field == "hash" else (b.prev_hash, bytes(32))
        return seal(sessions[g].identity, MSG_STEP, [b.game_id, b.step, g, ph, pd, None])

    net = KeyedNet(list(sessions), random_legal(E, seed=seed), lie=lie)
    net.run(max_time=200.0)
    assert net.lies
    overs = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in range(n)]
    assert all(len(o) == 1 for o in overs), net.describe()
    assert len({o[0].final_hash for o in overs}) == 1
    for i in range(n - 1):
        assert not [e for e in net.events[i] if isinstance(e, (SeatDropped, CheaterProven))], (i, net.describe())
        net.s[i].log.close()
        rep = verify_log(paths[i], engine=E)
        assert rep.ok and rep.complete and not rep.cheaters, (i, rep.first_bad_step, rep.error)
