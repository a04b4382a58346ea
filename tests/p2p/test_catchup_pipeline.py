"""The pipelined catch-up of a peer that is behind (protocol.md §C9.1, §C9.2, §C9.6): page
requests in flight, later pages held until reached, the responders' token bucket."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p import const as C
from p2p.catchup import CatchUp
from p2p.gamelog import KIND_STEP
from p2p.identity import Identity
from p2p.wire import CatchupResponse, decode_catchup_req, open_envelope, pack

GID = b"g" * 16


def _cu() -> CatchUp:
    return CatchUp(Identity.from_seed(b"pipe"), GID, 3)


def _ranges(raws: list[bytes]) -> list[tuple[int, int]]:
    out = []
    for raw in raws:
        r = decode_catchup_req(open_envelope(raw, C.MAX_CATCHUP_MSG).body)
        assert r.game_id == GID and r.seat == 3
        out.append((r.from_step, r.to_step))
    return out


def _page(first: int, steps: int, size: int = 500, head: int = 10_000) -> CatchupResponse:
    recs = [[KIND_STEP, pack([k, [b"x" * size]])] for k in range(first, first + steps)]
    return CatchupResponse(GID, 0, first, head, recs, [], [])


def test_a_first_request_asks_one_page_from_our_step():
    cu = _cu()
    assert _ranges(cu.requests(40, now=0.0)) == [(40, 40 + C.CATCHUP_PAGE_STEPS)]


def test_with_a_peer_ahead_the_pipeline_holds_consecutive_ranges_up_to_its_step():
    cu = _cu()
    cu.note_ahead(0, 100)
    p = C.CATCHUP_PAGE_STEPS
    want = [(40 + i * p, 40 + (i + 1) * p) for i in range(C.CATCHUP_PIPELINE)]
    assert _ranges(cu.requests(40, now=0.0)) == want
    assert cu.requests(40, now=0.1) == []  # all in flight: nothing asked twice
    cu2 = _cu()
    cu2.note_ahead(0, 45)
    assert _ranges(cu2.requests(40, now=0.0)) == [(40, 40 + p)]  # never past the goal but the first


def test_a_page_sets_the_pace_from_the_size_of_its_steps():
    cu = _cu()
    cu.hold(_page(10, 10, size=1000), b"raw", 10)
    per_step = len(pack([10, [b"x" * 1000]])) + 8
    assert cu.pace == C.CATCHUP_MAX_BYTES * 9 // (10 * per_step)


def test_a_later_page_is_held_and_given_back_once_reached():
    cu = _cu()
    cu.note_ahead(0, 200)
    cu.requests(10, now=0.0)
    later = _page(26, 16)
    assert cu.hold(later, b"later", 10) is True
    assert cu.reachable(10) is None
    assert cu.hold(_page(10, 16), b"now", 10) is False  # our step: applied at once, not held
    assert cu.reachable(26) == (later, b"later")
    assert cu.reachable(26) is None


def test_a_short_page_leaves_a_hole_that_is_asked_again():
    cu = _cu()
    cu.note_ahead(0, 200)
    cu.requests(10, now=0.0)  # 10..26, 26..42, ...
    cu.hold(_page(10, 5), b"a", 10)  # came back with 5 steps only (a small responder cap)
    cu.hold(_page(26, 16), b"b", 15)  # held
    asked = _ranges(cu.requests(15, now=0.01))
    assert asked[0][0] == 15  # the hole 15..26 first


def test_unanswered_requests_are_asked_again_after_catchup_after():
    cu = _cu()
    first = _ranges(cu.requests(7, now=0.0))
    assert cu.requests(7, now=C.CATCHUP_AFTER / 2) == []
    assert _ranges(cu.requests(7, now=C.CATCHUP_AFTER)) == first


def test_held_pages_are_bounded_and_the_earliest_kept():
    cu = _cu()
    for k in range(C.CATCHUP_HELD + 5):
        cu.hold(_page(100 + 10 * k, 10), bytes([k]), 50)
    got = []
    step = 100
    while (h := cu.reachable(step)) is not None:
        got.append(h[0].from_step)
        step = h[0].from_step + 10
    assert got == [100 + 10 * k for k in range(C.CATCHUP_HELD)]


def test_the_responders_bucket_allows_a_burst_then_the_rate():
    cu = _cu()
    n = 0
    while cu.may_serve(1, 0.0):
        cu.served(1, 0.0)
        n += 1
    assert n == C.CATCHUP_BURST
    assert cu.may_serve(2, 0.0)  # per requester
    assert cu.may_serve(1, 0.0, one_step=True)  # a dispute's single-step request apart
    assert not cu.may_serve(1, 0.5 / C.CATCHUP_RATE)
    assert cu.may_serve(1, 1.0 / C.CATCHUP_RATE)


@settings(max_examples=60, deadline=None)
@given(times=st.lists(st.floats(0, 5), min_size=1, max_size=200))
def test_answers_never_exceed_burst_plus_rate_times_elapsed(times):
    """Whatever the requests' timing, one requester gets at most BURST + RATE * t answers."""
    cu = _cu()
    times = sorted(times)
    answered = 0
    for t in times:
        if cu.may_serve(1, t):
            cu.served(1, t)
            answered += 1
    assert answered <= C.CATCHUP_BURST + C.CATCHUP_RATE * (times[-1] - times[0]) + 1e-9


def test_a_restarted_peer_catches_up_hundreds_of_steps_through_the_pipeline(tmp_path):
    """A peer whose log lost its last 150 step records resumes, catches up in several pages
    (several in flight, later ones held), with no record refused, and the game ends agreed.
    It signs nothing for the steps a page brings (§C9.2 "Nothing signed for a step a page
    brings"; H42's finding: before, a reveal at every chance step it passed, stale for the
    others: 73 STEP envelopes here); entering the first step past a page it does."""
    import fake_engine as E
    from p2p_harness import Net, make_lobbies, pump_lobbies, random_legal

    from p2p.gamelog import LogReader, LogWriter
    from p2p.lockstep import CaughtUp, GameOver, PeerMisbehaved
    from p2p.resume import resume_session

    lobbies = make_lobbies(3, options={"target": 400}, chain=1024)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    paths = [str(tmp_path / f"{i}.log") for i in range(3)]
    sessions = [lob.start_session(E, log=LogWriter(p, lob.log_header())) for p, lob in zip(paths, ordered)]
    net = Net(sessions, random_legal(E, seed=3))
    state: dict = {"done": False, "sent": []}

    def crash(n: Net):
        if not state["done"] and n.s[2].step >= 200:
            state["done"] = True
            n.s[2].log.close()
            recs = list(LogReader(paths[2]))
            with open(paths[2], "r+b") as f:
                f.truncate(recs[len(recs) - 150].offset)
            n.s[2], _ = resume_session(paths[2], ordered[2].identity, ordered[2].chain_secret, E, now=n.now)
            n.s[2].messages_to_send = _counting(n.s[2].messages_to_send, state["sent"])
            n.events[2].clear()
        return None

    net.run(max_time=1e5, hook=crash)
    ev = net.events[2]
    ups = [e for e in ev if isinstance(e, CaughtUp)]
    assert state["done"] and len(ups) >= 2  # several pages
    assert sum(e.to_step - e.from_step for e in ups) >= 140
    assert not [e for e in ev if isinstance(e, PeerMisbehaved)]
    # A page applied from step f up to step t brought the records of f..t-1: entering f+1..t-1
    # it signed nothing; at t, past the page, it did (and it plays on).
    assert not [k for k in state["sent"] if any(e.from_step < k < e.to_step for e in ups)]
    assert max(state["sent"]) > ups[-1].to_step
    ends = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(x) == 1 for x in ends) and len({x[0].final_hash for x in ends}) == 1


def _counting(send, steps: list):
    """``send`` (a session's ``messages_to_send``) that also notes the step of each STEP
    envelope it gives in ``steps``."""
    from p2p.wire import MSG_STEP, decode_step_body

    def counted() -> list[bytes]:
        out = send()
        for raw in out:
            env = open_envelope(raw, C.MAX_CATCHUP_MSG)
            if env.mtype == MSG_STEP:
                steps.append(decode_step_body(env.body).step)
        return out

    return counted


def test_answers_resend_our_escrow_at_most_once_per_interval():
    cu = _cu()
    assert cu.escrow_due(0.0) and not cu.escrow_due(C.CATCHUP_INTERVAL / 2)
    assert cu.escrow_due(C.CATCHUP_INTERVAL)
