"""Spectators (protocol.md §N10, p2p/spectate.py): a seat serves WATCH subscriptions from its
own socket, sends its signed log records in bounded batches, forgets silent spectators; the
spectator takes only the seat's signed records, in order, and verifies them by replay."""

from __future__ import annotations

import json
from pathlib import Path

from p2p import const as C
from p2p.gamelog import KIND_HEADER, LogReader
from p2p.identity import Identity
from p2p.spectate import (MAX_WATCHERS, RECORDS_BATCH, WATCH_BYTES_PER_S, WATCH_TTL_S, WatchClient,
                          WatchServer)
from p2p.wire import MSG_RECORDS, MSG_WATCH, seal

VEC = Path(__file__).resolve().parents[1] / "vectors"
SEAT = Identity.from_seed(b"seat")
GID = bytes(range(16))


def game_records():
    """The published sample game's log records (tests/vectors/game.lnplog): header first."""
    return [(r.kind, r.payload) for r in LogReader(VEC / "game.lnplog")]


def spectator(seed=b"prof"):
    ident = Identity.from_seed(seed)
    return ident, WatchClient(ident, GID, SEAT.public_key, "Prof")


def test_subscribe_then_receive_every_record_in_order():
    records = game_records()
    server = WatchServer(SEAT, GID)
    ident, client = spectator()
    server.receive(client.watch_message(), ("10.0.0.9", 5000), ident.x25519_public_key, 0.0)
    assert server.stats["subscribed"] == 1
    now = 0.0
    while len(client.records) < len(records):
        out = server.outgoing(records, now)
        for addr, raw in out:
            assert addr == ("10.0.0.9", 5000) and len(raw) <= C.MAX_WATCH_MSG
            client.receive(raw)
        now += 0.25
        server.receive(client.watch_message(), ("10.0.0.9", 5000), ident.x25519_public_key, now)
    assert client.records == records
    assert server.outgoing(records, now) == []  # nothing new, nothing sent


def test_bytes_per_second_are_bounded_per_spectator():
    records = game_records()
    server = WatchServer(SEAT, GID)
    ident, client = spectator()
    server.receive(client.watch_message(), "a", ident.x25519_public_key, 0.0)
    first = server.outgoing(records, 0.0)
    sent = sum(len(raw) for _, raw in first)
    # one batch may overshoot the credit; never more than the credit plus one batch
    assert sent <= WATCH_BYTES_PER_S + RECORDS_BATCH + 1024


def test_a_watch_must_come_over_a_channel_keyed_with_its_own_key_and_be_signed():
    server = WatchServer(SEAT, GID)
    ident, client = spectator()
    raw = client.watch_message()
    server.receive(raw, "a", None, 0.0)  # plain channel
    server.receive(raw, "a", Identity.from_seed(b"other").x25519_public_key, 0.0)
    bad = bytearray(raw)
    bad[-1] ^= 1
    server.receive(bytes(bad), "a", ident.x25519_public_key, 0.0)
    server.receive(seal(ident, MSG_WATCH, [bytes(16), ident.public_key, ident.x25519_public_key, "x", 0]), "a",
                   ident.x25519_public_key, 0.0)
    server.receive(b"\x93\x25junk", "a", ident.x25519_public_key, 0.0)
    assert not server.subs
    assert {k: server.stats.get(k) for k in ("key_mismatch", "bad_signature", "wrong_game", "malformed")} == \
        {"key_mismatch": 2, "bad_signature": 1, "wrong_game": 1, "malformed": 1}


def test_at_most_max_watchers_and_silent_ones_lapse():
    server = WatchServer(SEAT, GID)
    for i in range(MAX_WATCHERS + 3):
        ident, client = spectator(bytes([i]))
        server.receive(client.watch_message(), ("10.0.0.1", 6000 + i), ident.x25519_public_key, 0.0)
    assert len(server.subs) == MAX_WATCHERS and server.stats["full"] == 3
    server.outgoing([(KIND_HEADER, b"h")], WATCH_TTL_S + 0.1)
    assert not server.subs and server.stats["expired"] == MAX_WATCHERS


def test_the_client_takes_only_the_seats_signed_records_in_order():
    records = game_records()
    ident, client = spectator()
    mallory = Identity.from_seed(b"mallory")
    assert client.receive(seal(mallory, MSG_RECORDS, [GID, 0, [list(records[0])]])) == 0  # not the seat
    assert client.receive(seal(SEAT, MSG_RECORDS, [bytes(16), 0, [list(records[0])]])) == 0  # other game
    assert client.receive(seal(SEAT, MSG_RECORDS, [GID, 0, [list(records[1])]])) == 0  # no header first
    assert client.receive(seal(SEAT, MSG_RECORDS, [GID, 2, [list(records[2])]])) == 0  # a gap
    assert client.receive(seal(SEAT, MSG_RECORDS, [GID, 0, [list(r) for r in records[:3]]])) == 3
    assert client.receive(seal(SEAT, MSG_RECORDS, [GID, 1, [list(r) for r in records[1:5]]])) == 2  # overlap
    assert client.records == records[:5]
    assert {k: client.stats.get(k) for k in ("bad_signature", "wrong_game", "no_header", "gap")} == \
        {"bad_signature": 1, "wrong_game": 1, "no_header": 1, "gap": 1}


def test_records_are_verified_by_replay_and_a_forged_one_stops_the_view(tmp_path):
    """ui.watch.verify_records replays what arrived like ``lanopoli verify``: the published game
    ends in its published final state; a step record with one flipped signature byte fails at
    that step (the spectator shows the fault, never the forged step)."""
    import engine
    from p2p.gamelog import KIND_STEP, LogWriter
    from p2p.wire import unpack
    from ui.watch import verify_records

    facts = json.loads((VEC / "game.json").read_text())
    records = game_records()

    def write(path, recs):
        w = LogWriter(path, recs[0][1])
        for kind, payload in recs[1:]:
            assert kind == KIND_STEP
            w.append_step(*unpack(payload, big=True))
        w.close()

    write(tmp_path / "ok.log", records)
    report, rec = verify_records(tmp_path / "ok.log", engine)
    assert report.ok and report.complete
    assert engine.state_hash(rec.state).hex() == facts["final_state_hash"] and rec.events
    step, raws = unpack(records[10][1], big=True)
    raws[0] = raws[0][:-1] + bytes([raws[0][-1] ^ 1])
    from p2p.wire import pack
    forged = records[:10] + [(KIND_STEP, pack([step, raws]))] + records[11:]
    write(tmp_path / "bad.log", forged)
    report, rec = verify_records(tmp_path / "bad.log", engine)
    assert not report.ok and report.first_bad_step == 9 and "signature" in report.error
