"""Red team (hook re-read RV16S-A F1 [HIGH], older than session 16; protocol.md §C3.4 'Two
versions applied', 'Not closed'): the liar's tail lie at decision step k on its own catch-up page,
followed by a record of k+1 (a plain chance step) whose other seats' forced bodies it rebuilds
over its lie's history (unsigned: at a plain chance step a forced body is taken whatever its
signature, §C3.8), with their genuine reveals. RecordIngest.ingest_step_record's ``seen`` then
takes those bodies as other seats confirming our history and forgets who served step k, and the
catching-up peer never sees an honest record of k again: it stays behind, the table drops it.
The controls (no forged k+1) pass: the word rule (H179, H182) rolls the victim back."""
from __future__ import annotations

import pytest

import fake_engine as E
from p2p import const as C
from p2p.forced import forced_body
from p2p.gamelog import KIND_STEP, step_payload
from p2p.wire import (MSG_CATCHUP_REQ, MSG_CATCHUP_RESP, MSG_STEP, CatchupResponse, decode_catchup_req,
                      decode_catchup_resp, open_envelope, seal, seal_message, unpack)
from p2p.envelope import pack

from p2p_harness import Net, finish_together, random_legal, restart_overturned
from redteam_auth_kit import step_of
from test_redteam_s15_catchup import _second_version, resume_victim, three_seats, VICTIM, LIAR, CRASH_AT, BEHIND, OPTS, MAX_TIME


def _fake_env(body: bytes) -> bytes:
    return pack([MSG_STEP, body, b"\x00" * 64])


FORGED = pytest.mark.xfail(strict=True, reason="RV16S-A F1 [HIGH] (§C3.4 'Not closed'): unsigned forced bodies of "
                           "a forged k+1 record make the catching-up peer forget that the liar alone served step k; "
                           "it never rolls back and is dropped by the table")


@pytest.mark.parametrize("lie_kept", [False, True], ids=["table_version_kept", "lie_kept"])
@pytest.mark.parametrize("forge", [False, pytest.param(True, marks=FORGED)], ids=["no_forge", "forge_next"])
def test_a_forged_plain_next_record_does_not_keep_a_catching_up_peer_on_the_lie(tmp_path, lie_kept, forge):
    ordered, paths, sessions, secrets = three_seats(tmp_path)
    st: dict = {"resumed": False}
    plan: dict = {}

    def resume(n, **cut):
        resume_victim(n, ordered, paths, secrets, **cut)

    def drop(src, dst, data):
        if not st["resumed"] or src != VICTIM or dst != LIAR or data[:2] != bytes([0x93, MSG_CATCHUP_REQ]) \
                or net.s[LIAR] is None or "k" in plan:
            return False
        r = decode_catchup_req(open_envelope(data, C.MAX_CATCHUP_MSG).body)
        a = net.s[LIAR]
        raw = a.catchup.build_response(r.from_step, r.to_step, a.step, [], [])
        records = [list(x) for x in decode_catchup_resp(open_envelope(raw, C.MAX_CATCHUP_MSG).body).records]
        steps = [(i, unpack(rec[1])) for i, rec in enumerate(records) if rec[0] == KIND_STEP]
        for j in range(len(steps) - 2, -1, -1):
            (ik, (k, msgs)), (ik1, (k1, msgs1)) = steps[j], steps[j + 1]
            if k1 != k + 1 or msgs[LIAR] is None or type(step_of(msgs[LIAR]).input) is bytes:
                continue
            if any(m is None or type(step_of(m).input) is not bytes for m in msgs1):
                continue  # k+1 must be a chance step with every seat's reveal
            if records[ik + 1:ik1]:
                continue  # nothing between the two records
            break
        else:
            return False
        msgs = list(msgs)
        plan.update(k=k, first=msgs[LIAR])
        msgs[LIAR] = plan["second"] = _second_version(a, msgs[LIAR], lie_kept)
        page1 = records[:ik] + [[KIND_STEP, step_payload(k, msgs)]]
        v = net.s[VICTIM]
        v.receive_message(seal_message(a.identity, MSG_CATCHUP_RESP,
                                       CatchupResponse(a.setup.game_id, LIAR, r.from_step, a.step, page1, [], [])), net.now)
        plan["after_page1"] = (v.step, dict(getattr(v.ingest, "word", {})))
        if forge and v.step == k + 1:
            ph, pd = v.state_hash, v.steps.prev_digest
            forged = []
            for seat, m in enumerate(msgs1):
                body = forced_body(a.setup.game_id, k + 1, seat, ph, pd, step_of(m).input)
                forged.append(seal(a.identity, MSG_STEP, unpack(body)) if seat == LIAR else _fake_env(body))
            page2 = [[KIND_STEP, step_payload(k + 1, forged)]]
            v.receive_message(seal_message(a.identity, MSG_CATCHUP_RESP,
                                           CatchupResponse(a.setup.game_id, LIAR, k + 1, a.step, page2, [], [])), net.now)
            plan["after_page2"] = (v.step, dict(getattr(v.ingest, "word", {})))
        return True

    restarts: list = []
    overturned = restart_overturned([str(p) for p in paths], secrets, restarts)

    def hook(n):
        if not st["resumed"] and n.s[VICTIM].step >= CRASH_AT:
            st["resumed"] = True
            resume(n, truncate_at=CRASH_AT - BEHIND)
        return overturned(n)

    net = Net(sessions, random_legal(E, seed=3), drop=drop)
    net.run(max_time=MAX_TIME, max_rounds=5_000_000, hook=hook)
    assert "k" in plan
    assert (VICTIM, plan["k"], True) in restarts
    finish_together(net, net.s, paths, (0, VICTIM), cheaters={LIAR})
