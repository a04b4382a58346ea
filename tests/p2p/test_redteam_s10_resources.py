"""Red team, session 10 (H94): memory a seat-holder makes every honest peer keep, datagram by
datagram (protocol.md §N2.6 'Bounds', §C8.8 complaints, §N9 chat). Since the game's start only
the setup's endpoints may open channels (``Endpoint.restrict``), so the sender here is a seat:
its channel MAC is valid whatever it sends, and everything it sends reaches the session (or the
chat room: in the game every seat relays).

What a seat may make a peer hold is otherwise bounded by the lockstep window: STEP messages of
at most ``STEP_WINDOW`` steps ahead, ``KEEP_STEPS`` steps kept, one DROP vote per voter, step and
target. Two places kept more, one entry per datagram for the whole game: the COMPLAINTs seen and
the chat token buckets of author keys. In memory, fake engine; memory is measured with
``tracemalloc`` (what is still held after the datagrams were handled and the caller dropped
them), never timed.
"""

from __future__ import annotations

import gc
import tracemalloc

import pytest

import fake_engine as E
from p2p import const as C
from p2p.bodies import Chat
from p2p.chat import ChatRoom
from p2p.complaints import make_complaint
from p2p.identity import Identity
from p2p.wire import MSG_CHAT, seal_message

from p2p_harness import started_sessions

OPTS = {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30}
#: Distinct COMPLAINT datagrams the seat sends (each ~2.4 KB: two 1,150-byte evidence blobs).
N = 2000
#: Chat lines (~130 B each) the seat sends, each naming a fresh author key.
N_CHAT = 10_000
#: What a peer may keep for them: the size of a few steps' messages, far below N x 2.4 KB.
BOUND = 256 * 1024


def _retained(session, datagrams, deliver=None) -> tuple[int, int]:
    """(bytes ``session`` still holds after receiving ``datagrams``, bytes received): ``deliver``
    hands it each datagram (default: the session's ``receive_message``). Each
    datagram arrives as a fresh bytes object that the caller then drops, as the node's socket
    reader does, and the session's events are drained after each (as ``Node._pump_session``
    does: a ``PeerMisbehaved`` carries the bad bytes), so what stays allocated is what the
    session kept."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for raw in datagrams:
            if deliver is not None:
                deliver(bytes(bytearray(raw)))
                continue
            session.receive_message(bytes(bytearray(raw)), 0.0)
            while session.next_event() is not None:
                pass
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return after - before, sum(len(d) for d in datagrams)


@pytest.mark.parametrize("signed", [False, True], ids=["bad_signature", "signed_proving_nothing"])
def test_a_seats_complaints_that_prove_nothing_are_not_all_kept(signed):
    """Seat 2 sends seat 0 N distinct COMPLAINTs of kind 1 whose evidence is junk: signed with
    a key that is not seat 1's (a bad signature, counted and dropped), or signed with its own
    seat key (valid, the evidence proves nothing, ignored). The rule: nothing that proves nothing
    is kept beyond a bound independent of N."""
    sessions = started_sessions(3, E, options=OPTS)
    victim = sessions[0]
    gid = victim.setup.game_id
    if signed:
        signer, seat, culprit = sessions[2].identity, 2, 1
    else:
        signer, seat, culprit = Identity.from_seed(b"h94-not-seat-1"), 1, 2
    datagrams = [make_complaint(signer, gid, seat, 0, culprit, 1,
                                [b"\x99" * 1150, i.to_bytes(4, "big") + b"\x77" * 1146], None)
                 for i in range(N)]
    held, sent = _retained(victim, datagrams)
    st = victim.stats
    assert st["bad_signature" if not signed else "ignored"] >= N  # every one refused or ignored
    assert victim.phase == "running" and victim.step == 0  # nothing else changed
    assert held <= BOUND, f"kept {held:,} B for {sent:,} B of complaints that prove nothing"


def test_a_seats_chat_lines_of_fresh_author_keys_are_not_all_remembered():
    """Seat 2 (any key it likes as the author: in the game a relayed author who is not a seat is a
    spectator, §N9/§N10) sends a peer's chat room N_CHAT lines, each naming a fresh author key, signed
    by its own key (so no line verifies). The rule: what lines that were never shown leave behind
    stays within a bound independent of N_CHAT."""
    me, mallory = Identity.from_seed(b"h94-chat-me"), Identity.from_seed(b"h94-chat-mallory")
    gid = bytes(range(16))
    room = ChatRoom(me, gid, "me", 0.0)
    room.set_game(gid)
    room.set_members({me.public_key: ("me", "player"), mallory.public_key: ("m", "player")})
    lines = [seal_message(mallory, MSG_CHAT, Chat(gid, i.to_bytes(4, "big") * 8, 1, "x", "ciao"))
             for i in range(N_CHAT)]
    clock = iter(range(N_CHAT))
    held, sent = _retained(room, lines, lambda raw: room.receive(raw, next(clock) * 1e-4, relayed=True,
                                                                 via=("10.0.0.3", 5000)))
    assert room.stats["shown"] == 0 and room.stats["busy"] + room.stats["bad_signature"] == N_CHAT
    assert held <= BOUND, f"kept {held:,} B for {sent:,} B of chat lines never shown"
