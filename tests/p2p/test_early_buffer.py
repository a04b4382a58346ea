"""The session messages a node keeps before its own session starts (p2p/early_buffer.py;
protocol.md §N2.6 "Early session messages"): only from the setup's seats, only of their type's
size, at most ``EARLY_PER_SEAT`` payloads and ``EARLY_BYTES_PER_SEAT`` bytes per seat; and a
seat's step messages that reach a host before its session starts still play (whole peers on
loopback, as tests/p2p/test_node.py).
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

import fake_engine
from p2p.const import MAX_SEATS
from p2p.early_buffer import EARLY_BYTES_PER_SEAT, EARLY_PER_SEAT, EarlyBuffer
from p2p.envelope import MAX_SIZE, MSG_CATCHUP_RESP, MSG_COMPLAINT, MSG_STEP, SESSION_TYPES
from p2p.node import Node, PeerConfig, run_peer
from p2p.node_reports import Hosting

SEATS = [bytes([i]) * 32 for i in range(1, 4)]  # the setup's players' X25519 keys
STRANGER = b"\xee" * 32


def lobby_of(keys) -> SimpleNamespace:
    """A stand-in ``Lobby`` holding a setup whose players have ``keys`` (None: no PROPOSAL yet)."""
    setup = None if keys is None else SimpleNamespace(players=[SimpleNamespace(x25519_key=k) for k in keys])
    return SimpleNamespace(setup=setup)


def msg(mtype: int, size: int, tag: int = 0) -> bytes:
    """A session-tagged payload of ``size`` bytes (the buffer reads only the tag and the length)."""
    return (bytes([0x93, mtype, tag]) + b"\0" * size)[:size]


def test_only_the_setups_seats_over_their_keyed_channels_are_kept():
    buf, lobby = EarlyBuffer(), lobby_of(SEATS)
    assert not buf.hold(msg(MSG_STEP, 300), None, lobby)  # a plain channel
    assert not buf.hold(msg(MSG_STEP, 300), STRANGER, lobby)  # a key of no seat
    assert not buf.hold(msg(MSG_STEP, 300), SEATS[0], None)  # no lobby
    assert not buf.hold(msg(MSG_STEP, 300), SEATS[0], lobby_of(None))  # no PROPOSAL yet
    assert buf.dropped == {"early_stranger": 4} and len(buf) == 0
    assert buf.hold(msg(MSG_STEP, 300), SEATS[0], lobby)
    assert len(buf) == 1 and buf.held_bytes == 300


def test_a_payload_over_its_types_size_is_dropped():
    buf, lobby = EarlyBuffer(), lobby_of(SEATS)
    assert buf.hold(msg(MSG_STEP, MAX_SIZE[MSG_STEP]), SEATS[0], lobby)
    assert not buf.hold(msg(MSG_STEP, MAX_SIZE[MSG_STEP] + 1), SEATS[0], lobby)
    assert buf.hold(msg(MSG_COMPLAINT, MAX_SIZE[MSG_COMPLAINT]), SEATS[0], lobby)
    assert not buf.hold(b"\x93", SEATS[0], lobby)  # no type byte
    assert not buf.hold(msg(0x7F, 100), SEATS[0], lobby)  # not a session type
    assert buf.dropped == {"early_oversize": 3} and len(buf) == 2


def test_each_seat_keeps_at_most_its_count_and_bytes_first_come():
    buf, lobby = EarlyBuffer(), lobby_of(SEATS)
    for i in range(EARLY_PER_SEAT + 5):
        buf.hold(msg(MSG_STEP, 100, i), SEATS[0], lobby)
    assert buf.dropped == {"early_full": 5}
    assert buf.hold(msg(MSG_CATCHUP_RESP, EARLY_BYTES_PER_SEAT), SEATS[1], lobby)  # one largest fits
    assert not buf.hold(msg(MSG_STEP, 1), SEATS[1], lobby)
    assert buf.hold(msg(MSG_STEP, 100), SEATS[2], lobby)  # another seat's budget is its own
    taken = buf.take()
    assert [p[2] for p in taken[:EARLY_PER_SEAT]] == list(range(EARLY_PER_SEAT))  # the first ones, in order
    assert len(taken) == EARLY_PER_SEAT + 2 and len(buf) == 0 and buf.held_bytes == 0
    assert buf.hold(msg(MSG_STEP, 100), SEATS[0], lobby)  # taken: the budgets start again


def test_a_new_setup_drops_what_its_players_did_not_send():
    buf = EarlyBuffer()
    buf.hold(msg(MSG_STEP, 100, 1), SEATS[0], lobby_of(SEATS))
    buf.hold(msg(MSG_STEP, 100, 2), SEATS[1], lobby_of(SEATS))
    next_round = lobby_of(SEATS[1:])  # seat 0 removed (§C2.2 step 7)
    assert not buf.hold(msg(MSG_STEP, 100, 3), SEATS[0], next_round)
    assert buf.hold(msg(MSG_STEP, 100, 4), SEATS[1], next_round)
    assert buf.dropped == {"early_stale": 1, "early_stranger": 1}
    assert [p[2] for p in buf.take()] == [2, 4]


@given(st.lists(st.tuples(st.sampled_from([*SEATS, STRANGER, None]), st.sampled_from(sorted(SESSION_TYPES)),
                          st.integers(2, 70_000)), max_size=300))
def test_what_is_kept_is_bounded_per_seat_and_keeps_the_arrival_order(arrivals):
    buf, lobby = EarlyBuffer(), lobby_of(SEATS)
    kept = [(key, m) for key, mtype, size in arrivals if buf.hold(m := msg(mtype, size), key, lobby)]
    assert all(key in SEATS for key, _ in kept)
    for seat in SEATS:
        mine = [m for key, m in kept if key == seat]
        assert len(mine) <= EARLY_PER_SEAT and sum(map(len, mine)) <= EARLY_BYTES_PER_SEAT
    assert buf.held_bytes <= (MAX_SEATS - 1) * EARLY_BYTES_PER_SEAT
    assert sum(buf.dropped.values()) == len(arrivals) - len(kept)
    assert buf.take() == [m for _, m in kept]


async def _a_host_starting_after_its_joiner(tmp_path, monkeypatch) -> tuple[list, list[int]]:
    """Two whole peers on loopback; the host's ``start_game`` waits until the joiner's first
    session message reached it (the host's SEED arrived last: the joiner plays first)."""
    taken: list[int] = []
    start, take = Node.start_game, EarlyBuffer.take

    def late_start(node, ev):
        if node.cfg.role != "host":
            return start(node, ev)
        deadline = node.loop.time() + 20  # a cap if the joiner never sends: the assertion says so

        def poll():
            if len(node.early) or node.loop.time() > deadline:
                start(node, ev)
            else:
                node.loop.call_later(0.01, poll)
        poll()

    def spy_take(buf):
        out = take(buf)
        taken.append(len(out))
        return out

    monkeypatch.setattr(Node, "start_game", late_start)
    monkeypatch.setattr(EarlyBuffer, "take", spy_take)
    hosting: asyncio.Future = asyncio.get_running_loop().create_future()

    def progress(report):
        if isinstance(report, Hosting) and not hosting.done():
            hosting.set_result(report.game_id)

    common = dict(bind="127.0.0.1", engine=fake_engine, edition="race", options={"target": 40},
                  chain_length=256, timeout=60, log_dir=tmp_path, discovery_timeout=20,
                  choose=lambda state, seat, bot: (fake_engine.legal_actions(state, seat) or [None])[-1])
    host = asyncio.ensure_future(run_peer(PeerConfig(role="host", seats=2, name="p0", progress=progress,
                                                     demo_seed=b"h100-host", **common)))
    game_id = await asyncio.wait_for(hosting, 20)
    joiner = asyncio.ensure_future(run_peer(PeerConfig(role="join", name="p1", demo_seed=b"h100-join",
                                                       game_id=game_id, **common)))
    return list(await asyncio.gather(host, joiner)), taken


def test_a_joiners_step_messages_before_the_hosts_session_starts_still_play(tmp_path, monkeypatch):
    results, taken = asyncio.run(_a_host_starting_after_its_joiner(tmp_path, monkeypatch))
    assert len({r.final_state_hash for r in results}) == 1 and results[0].winner is not None
    assert max(taken) >= 1  # the host's session got the joiner's early messages
