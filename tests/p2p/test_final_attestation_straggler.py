"""A straggler at the attestation step finishes even when the records pushed to it hold a liar's
other attestation (protocol.md §C3.5 'The blame is per log'; RV14R-T, session 14).

Seat g signs two final attestations: the plain one to most, one carrying an input to the victim
v; seat c garbles its attestation to v, so v re-sends its own and a finished peer pushes its
records of that step (H143 BREAK #1's answer), which hold g's plain version. v, still running,
then held two signed versions of g's attestation and proved an equivocation: no seat is left to
drop at the end, so it never reported GameOver and its log stayed incomplete. A proof at the
attestation step is now counted (``after_end``) and never made, as after the end: v finishes
with the others, one final hash, its log complete (the field-carrying version it logged names g).
In memory, keyed channels (tests/p2p/redteam_auth_kit.py)."""

from __future__ import annotations

import pytest

import fake_engine as E
from p2p.lockstep import GameOver
from p2p.verify import verify_log
from p2p.wire import MSG_STEP, seal
from p2p_harness import random_legal
from redteam_auth_kit import KeyedNet, garbled, step_of
from test_final_attestation_garbled import OPTS, _final_step
from test_resilience import logged_game


@pytest.mark.parametrize("seed", [2, 5])
def test_a_straggler_pushed_a_liars_other_attestation_still_finishes(tmp_path, seed):
    n = 4
    g, c, v = n - 1, n - 2, 1
    final = _final_step(tmp_path / "dry", n, seed)
    sessions, paths, _, _ = logged_game(tmp_path, n, OPTS)

    def lie(src, dst, raw):
        if dst != v or step_of(raw).step != final:
            return None
        b = step_of(raw)
        if src == g:
            return seal(sessions[g].identity, MSG_STEP, [b.game_id, b.step, g, b.prev_hash, b.prev_digest, [1]])
        return garbled(raw) if src == c else None

    net = KeyedNet(list(sessions), random_legal(E, seed=seed), lie=lie)
    net.run(max_time=200.0)
    overs = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in range(n)]
    assert all(len(o) == 1 for o in overs), net.describe()
    assert len({o[0].final_hash for o in overs}) == 1
    assert sessions[v].stats["after_end"] >= 1
    net.s[v].log.close()
    rep = verify_log(paths[v], engine=E)
    assert rep.ok and rep.complete, (rep.first_bad_step, rep.error)
