"""One designated responder per far page request (protocol.md §C9.2 'One responder per
range', issue 14): a range request that starts far behind the responder is answered first by
one seat only, a repeat by everyone; a silent or lying designated seat costs a repeat, never
the catch-up."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p import const as C
from p2p import catchup as CU
from p2p.catchup import CatchUp
from p2p.gamelog import KIND_STEP
from p2p.identity import Identity
from p2p.wire import MSG_CATCHUP_RESP, decode_catchup_resp, open_envelope, pack, seal_message, unpack

GID = b"g" * 16
FAR = CU.DESIGNATE_BEYOND + 1


def _cu(seat: int) -> CatchUp:
    return CatchUp(Identity.from_seed(b"resp%d" % seat), GID, seat)


def test_a_far_range_request_is_answered_first_by_its_designated_seat_only():
    others = [0, 1, 2]  # requester 3
    for start in range(40, 46):
        answering = [s for s in others if not _cu(s).defers(3, start, start + 16, start + FAR, others, 0.0)]
        assert answering == [others[start % 3]]


def test_a_repeat_of_the_same_range_is_answered_by_everyone():
    cu = _cu(1)
    assert cu.defers(3, 42, 58, 42 + FAR, [0, 1, 2], 0.0)  # 42 % 3 = 0: seat 0's range
    assert not cu.defers(3, 42, 60, 42 + FAR, [0, 1, 2], 1.0)  # asked again (any end): answer
    assert cu.defers(2, 42, 58, 42 + FAR, [0, 1, 3], 1.0)  # another requester: its own first ask
    assert cu.deferred == 2


def test_near_and_single_step_requests_are_answered_by_everyone():
    cu = _cu(1)
    assert not cu.defers(3, 42, 58, 42 + CU.DESIGNATE_BEYOND, [0, 1, 2], 0.0)  # a live game's lost message
    assert not cu.defers(3, 42, 43, 42 + 500, [0, 1, 2], 0.0)  # a digest dispute's single step
    assert not cu.defers(3, 42, 58, 42 + FAR, [], 0.0)  # no active responder known
    assert cu.deferred == 0


@settings(max_examples=40, deadline=None)
@given(asks=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 10_000), st.floats(0, 100)), max_size=600))
def test_deferred_requests_kept_are_bounded(asks):
    cu = _cu(0)
    for seat, start, t in sorted(asks, key=lambda a: a[2]):
        cu.defers(seat, start, start + 16, start + FAR, [1, 2, 3], t)
        assert cu.deferrals_kept <= CU.DEFERRED_KEPT


def _restart_game(tmp_path, *, drop=None, rewrite=None, seats: int = 4):
    """A ``seats``-seat game; seat ``seats - 1``'s log loses its last 150 step records at step
    200 and it resumes. ``drop(src, dst, raw)``: deliveries to lose; ``rewrite(src, raw)``: a
    CATCHUP_RESP to the restarted seat replaced by another (or None: as sent)."""
    import fake_engine as E
    from p2p_harness import Net, make_lobbies, pump_lobbies, random_legal

    from p2p.gamelog import LogReader, LogWriter
    from p2p.resume import resume_session

    v = seats - 1
    lobbies = make_lobbies(seats, options={"target": 400}, chain=1024)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    paths = [str(tmp_path / f"{i}.log") for i in range(seats)]
    sessions = [lob.start_session(E, log=LogWriter(p, lob.log_header())) for p, lob in zip(paths, ordered)]
    state = {"resumed_at": None}

    def lose(src: int, dst: int, raw: bytes) -> bool:
        if state["resumed_at"] is None or dst != v:
            return False
        if drop is not None and drop(src, dst, raw):
            return True
        if rewrite is not None and _mtype(raw) == MSG_CATCHUP_RESP:
            other = rewrite(src, raw, ordered[src].identity)
            if other is not None:
                net.s[v].receive_message(other, net.now)
                return True
        return False

    net = Net(sessions, random_legal(E, seed=3), drop=lose)

    def crash(n: Net):
        if state["resumed_at"] is None and n.s[v].step >= 200:
            n.s[v].log.close()
            recs = list(LogReader(paths[v]))
            with open(paths[v], "r+b") as f:
                f.truncate(recs[len(recs) - 150].offset)
            n.s[v], _ = resume_session(paths[v], ordered[v].identity, ordered[v].chain_secret, E, now=n.now)
            state["resumed_at"] = n.s[v].step
            n.events[v].clear()
        return None

    net.run(max_time=1e5, hook=crash)
    return net, state["resumed_at"]


def _mtype(raw: bytes) -> int | None:
    try:
        return open_envelope(raw, C.MAX_CATCHUP_MSG).mtype
    except Exception:
        return None


def _caught_up_and_agreed(net, resumed_at: int) -> list:
    from p2p.lockstep import CaughtUp, GameOver, PeerMisbehaved

    ev = net.events[-1]
    ups = [e for e in ev if isinstance(e, CaughtUp)]
    assert resumed_at is not None and sum(e.to_step - e.from_step for e in ups) >= 140
    ends = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(x) == 1 for x in ends) and len({x[0].final_hash for x in ends}) == 1
    return [e for e in ev if isinstance(e, PeerMisbehaved)]


def test_a_restarted_peers_far_pages_are_answered_once(tmp_path):
    """Every far page is served by one responder: the others defer it, and nobody's answer
    is refused."""
    net, at = _restart_game(tmp_path)
    assert _caught_up_and_agreed(net, at) == []
    responders = net.s[:-1]
    assert sum(s.catchup.deferred for s in responders) >= 4  # two others per far page
    served = sum(s.stats["catchup_served"] for s in responders)
    asked = net.s[-1].stats["catchup_requests"]
    assert served < 2 * asked  # broadcast to three, answered about once each (was 3 x)


def test_a_silent_designated_responder_costs_a_repeat_not_the_catch_up(tmp_path):
    """Seat 0 never answers the restarted seat: its ranges are asked again after
    CATCHUP_AFTER and answered by the others."""
    net, at = _restart_game(tmp_path, drop=lambda src, dst, raw: src == 0 and _mtype(raw) == MSG_CATCHUP_RESP)
    assert _caught_up_and_agreed(net, at) == []
    assert net.s[0].catchup.deferred + net.s[1].catchup.deferred + net.s[2].catchup.deferred >= 2


def test_a_lying_designated_responder_is_reported_and_the_others_answer_the_repeat(tmp_path):
    """Seat 1 signs pages whose step messages carry a broken signature: each is refused and
    reported, the range asked again at once and answered by the honest seats."""
    def lie(src: int, raw: bytes, identity: Identity) -> bytes | None:
        if src != 1:
            return None
        r = decode_catchup_resp(open_envelope(raw, C.MAX_CATCHUP_MSG).body)
        recs = []
        for kind, payload in r.records:
            if kind == KIND_STEP:
                k, raws = unpack(payload)
                raws = [None if m is None else m[:-1] + bytes([m[-1] ^ 1]) for m in raws]
                payload = pack([k, raws])
            recs.append([kind, payload])
        return seal_message(identity, MSG_CATCHUP_RESP, r._replace(records=recs))

    net, at = _restart_game(tmp_path, rewrite=lie)
    bad = _caught_up_and_agreed(net, at)
    assert bad and {e.seat for e in bad} == {1}
