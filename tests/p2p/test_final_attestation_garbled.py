"""The final attestation (protocol.md §C3.5) garbled to one victim (H143's session-13 finding,
found on branch v6 and reproduced on version 5).

The lying seat ``g`` sends one honest victim every copy of its attestation with a garbage
signature; the others get it signed, apply it and finish. The victim verifies it on receipt and
drops it (§C3.4), holds every other message of that step, and nothing tells it the others are
ahead (no message of a later step exists): before the rule of §C3.5 it asked for no page until
its drop timer voted ``g`` out, and the page that then brought ``g``'s signed attestation came too
late (a voter does not apply its target's message of the step it voted at, §C8.3 'A voter's
promise'; no quorum can drop ``g`` there, the others finished): the victim never finished. Now a
finished peer answers the victim's re-sent attestation with its records of that step (§C3.5),
long before the drop timer."""

from __future__ import annotations

import pytest

import fake_engine as E
from p2p import const as C
from p2p.lockstep import CheaterProven, GameOver, SeatDropped
from p2p.verify import verify_log
from p2p.wire import MSG_CATCHUP_RESP, open_envelope

from p2p_harness import Net, first_legal, random_legal, started_sessions
from redteam_auth_kit import KeyedNet, garbled, step_of
from test_resilience import logged_game

OPTS = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 5, "target": 60}


def _final_step(tmp_path, n: int, seed: int) -> int:
    """The attestation's step of the honest game of ``n`` seats and ``seed`` (deterministic: the
    lie changes nothing the engine sees)."""
    tmp_path.mkdir()
    sessions, _, _, _ = logged_game(tmp_path, n, OPTS)
    net = KeyedNet(list(sessions), random_legal(E, seed=seed))
    net.run(max_time=100.0)
    (over,) = [e for e in net.events[0] if isinstance(e, GameOver)]
    return over.steps


@pytest.mark.parametrize("n,seed", [(4, 2), (4, 5), (3, 1)])
def test_a_final_attestation_garbled_to_one_victim_still_lets_it_finish(tmp_path, n, seed):
    """§C3.5: the victim gets the liar's signed attestation from a finished peer's records and
    finishes with the others, one final hash, nobody honest dropped or proven, every log complete."""
    g, v = n - 1, 1
    final = _final_step(tmp_path / "dry", n, seed)
    sessions, paths, _, _ = logged_game(tmp_path, n, OPTS)

    def lie(src, dst, raw):
        return garbled(raw) if src == g and dst == v and step_of(raw).step == final else None

    net = KeyedNet(list(sessions), random_legal(E, seed=seed), lie=lie)
    net.run(max_time=100.0)
    assert net.lies
    honest = range(n - 1)
    overs = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in honest]
    assert all(len(o) == 1 for o in overs), net.describe()
    assert len({o[0].final_hash for o in overs}) == 1
    for i in honest:
        assert not [e for e in net.events[i] if isinstance(e, (SeatDropped, CheaterProven))], (i, net.describe())
        net.s[i].log.close()
        rep = verify_log(paths[i], engine=E)
        assert rep.ok and rep.complete, (i, rep.first_bad_step, rep.error)


def test_a_finished_peer_answers_a_re_sent_final_attestation_with_its_records():
    """§C3.5: a finished peer pushes its records of the attestation step to a seat that re-sends
    its attestation, at most once per push interval (§C9.2)."""
    ss = started_sessions(3)
    Net(ss, first_legal(E)).run()
    s0, s1 = ss[0], ss[1]
    assert s0.phase == "finished"
    s0.messages_to_send()
    final = s1.steps.own(s1.final_step)
    s0.receive_message(final, 100.0)
    out = [open_envelope(r, C.MAX_CATCHUP_MSG).mtype for r in s0.messages_to_send()]
    assert MSG_CATCHUP_RESP in out
    s0.receive_message(final, 100.1)  # within the push interval: not again
    assert MSG_CATCHUP_RESP not in [open_envelope(r, C.MAX_CATCHUP_MSG).mtype for r in s0.messages_to_send()]


@pytest.mark.parametrize("n,seed", [(4, 2), (3, 1)])
def test_a_second_signed_attestation_after_the_end_leaves_the_log_complete(tmp_path, n, seed):
    """§C3.5, Part L (RV13-B #1): a seat sends a finished peer another validly signed version of its
    final attestation (one datagram, after the game): nothing is proven nor logged after the
    attestation record (it is counted ``after_end``), and the log still verifies complete."""
    from p2p.wire import MSG_STEP, seal

    g = n - 1
    final = _final_step(tmp_path / "dry", n, seed)
    sessions, paths, _, _ = logged_game(tmp_path, n, OPTS)
    net = KeyedNet(list(sessions), random_legal(E, seed=seed))
    net.run(max_time=200.0)
    s0 = net.s[0]
    assert s0.phase == "finished"
    b = step_of(net.s[g].steps.own(final))
    other = seal(sessions[g].identity, MSG_STEP, [b.game_id, b.step, g, b.prev_hash, b.prev_digest, [1]])
    s0.receive_message(other, net.now + 1.0)
    events = []
    while (e := s0.next_event()) is not None:
        events.append(e)
    assert not [e for e in events if isinstance(e, CheaterProven)]
    assert s0.stats["after_end"] == 1 and s0.stats["complaints"] == 0
    s0.log.close()
    rep = verify_log(paths[0], engine=E)
    assert rep.ok and rep.complete, (rep.first_bad_step, rep.error)
