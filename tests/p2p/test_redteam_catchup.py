"""Red team of the pipelined catch-up (protocol.md §C9.2 'Replayed requests'): a hostile seat
replays another seat's signed CATCHUP_REQ. Session messages are authenticated by their
signature, not by the address they came from (§N4), and a request carries no time, so any seat
that received one can send it again, as often as it likes.

Before the fix every replay was answered from the *victim's* token bucket: 2,000 replays of one
92-byte request in 4 s made one responder broadcast 263 pages (8.2 MB, x3 receivers: x133 the
attacker's bytes), and the victim's own requests met an empty bucket (its catch-up starved).
Now a responder answers the same request bytes at most once per CATCHUP_SAME_REQ
(= CATCHUP_AFTER / 2; the requester itself repeats only after CATCHUP_AFTER)."""

from __future__ import annotations

import fake_engine as E
from p2p import const as C
from p2p.wire import MSG_CATCHUP_REQ, MSG_CATCHUP_RESP, CatchupRequest, seal_message

from p2p_harness import Net, random_legal
from test_resilience import logged_game

OPTS = {"target": 400, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}


def _stop(net):
    raise _Enough


class _Enough(Exception):
    pass


def _game(tmp_path):
    sessions, _, _, _ = logged_game(tmp_path, 4, OPTS)
    net = Net(list(sessions), random_legal(E, seed=1))
    try:
        net.run(max_time=1e5, hook=lambda n: _stop(n) if n.s[0].step >= 60 else None)
    except _Enough:
        pass
    for s in sessions:
        s.messages_to_send()
    return sessions, net.now


def _replay(responder, raw, t0, seconds, per_second):
    """Feed ``raw`` to ``responder`` ``per_second`` times a second for ``seconds``; return the
    number of CATCHUP_RESP pages it queued and their bytes."""
    pages = size = 0
    for i in range(int(seconds * per_second)):
        responder.receive_message(raw, t0 + i / per_second)
        for m in responder.messages_to_send():
            if m[:2] == bytes([0x93, MSG_CATCHUP_RESP]):
                pages += 1
                size += len(m)
    return pages, size


def test_replays_of_one_request_are_answered_once_per_window(tmp_path):
    sessions, now = _game(tmp_path)
    victim, responder = sessions[2], sessions[0]
    raw = seal_message(victim.identity, MSG_CATCHUP_REQ, CatchupRequest(victim.game_id, 2, 0, 40))
    seconds, rate = 4, 500  # the hostile seat sends 2,000 copies of one request
    pages, size = _replay(responder, raw, now + 1.0, seconds, rate)
    assert 1 <= pages <= seconds / C.CATCHUP_SAME_REQ + 1
    print(f"replays {seconds * rate} x {len(raw)} B -> {pages} pages, {size} B from one responder, "
          f"x{len(sessions) - 1} receivers each (broadcast): amplification "
          f"{size * (len(sessions) - 1) / (seconds * rate * len(raw)):.1f}")


def test_the_requesters_own_repeat_is_still_answered(tmp_path):
    """The requester asks the same page again after CATCHUP_AFTER (no answer came): answered."""
    sessions, now = _game(tmp_path)
    victim, responder = sessions[2], sessions[0]
    raw = seal_message(victim.identity, MSG_CATCHUP_REQ, CatchupRequest(victim.game_id, 2, 0, 40))
    for t in (now + 1.0, now + 1.0 + C.CATCHUP_AFTER, now + 1.0 + 2 * C.CATCHUP_AFTER):
        responder.receive_message(raw, t)
        assert any(m[:2] == bytes([0x93, MSG_CATCHUP_RESP]) for m in responder.messages_to_send())


def test_the_victims_own_request_is_answered_during_a_replay(tmp_path):
    """The victim asks (a fresh request) right after one of the replays was answered: before
    the fix its bucket was empty then and the request was ignored; now the replays no longer
    spend it."""
    sessions, now = _game(tmp_path)
    victim, responder = sessions[2], sessions[0]
    old = seal_message(victim.identity, MSG_CATCHUP_REQ, CatchupRequest(victim.game_id, 2, 0, 40))
    fresh = seal_message(victim.identity, MSG_CATCHUP_REQ, CatchupRequest(victim.game_id, 2, 0, 41))
    answered = []
    for i in range(1000):
        t = now + 1.0 + i / 500
        responder.receive_message(old, t)
        if any(m[:2] == bytes([0x93, MSG_CATCHUP_RESP]) for m in responder.messages_to_send()) and i > 100:
            responder.receive_message(fresh, t)
            answered.append(any(m[:2] == bytes([0x93, MSG_CATCHUP_RESP]) for m in responder.messages_to_send()))
    assert answered and all(answered)
