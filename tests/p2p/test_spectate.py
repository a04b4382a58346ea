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
    # The last renewal found nothing new: one empty RECORDS answers it (we are alive), then
    # nothing until the next renewal.
    (addr, raw), = server.outgoing(records, now)
    heard = client.heard
    assert client.receive(raw) == 0 and client.heard == heard + 1 and client.records == records
    assert server.outgoing(records, now + 1) == []


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
        # one spectator per machine (WATCHERS_PER_HOST: tests/p2p/test_spectate_places.py)
        server.receive(client.watch_message(), (f"10.0.0.{i + 1}", 6000), ident.x25519_public_key, 0.0)
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
    ends in its published final state; a step record with one flipped signature byte (of an
    action) fails at that step (the spectator shows the fault, never the forged step)."""
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
    from p2p.wire import decode_step_body, open_envelope, pack
    # A decision step's message: a plain chance step's forced body is taken whatever its
    # signature since version 4 (§C3.8, tests/p2p/test_forced_records.py).
    at = next(i for i in range(10, len(records)) if type(decode_step_body(open_envelope(
        unpack(records[i][1], big=True)[1][0]).body).input) is not bytes)
    step, raws = unpack(records[at][1], big=True)
    raws[0] = raws[0][:-1] + bytes([raws[0][-1] ^ 1])
    forged = records[:at] + [(KIND_STEP, pack([step, raws]))] + records[at + 1:]
    write(tmp_path / "bad.log", forged)
    report, rec = verify_records(tmp_path / "bad.log", engine)
    assert not report.ok and report.first_bad_step == step and "signature" in report.error


# -- any seat serves: failover and resync (protocol.md §N10 "Any seat serves") ----------------

from p2p.gamelog import KIND_COMPLAINT, KIND_STEP  # noqa: E402
from p2p.spectate import RESYNC_MARGIN, WATCH_RENEW_S  # noqa: E402


def _with_extras(records, every, tag):
    """``records`` with a non-step record (a COMPLAINT as one seat logged it) after every
    ``every``-th STEP: the seats' logs differ only by such records."""
    out, steps = [], 0
    for rec in records:
        out.append(rec)
        if rec[0] == KIND_STEP:
            steps += 1
            if steps % every == 0:
                out.append((KIND_COMPLAINT, tag + b"%d" % steps))
    return out


def _follow(client, ident, server, records, addr=("10.0.0.9", 5000), now=0.0, rounds=400):
    """Renew, serve, receive until the client holds as many STEP records as ``records``."""
    want = sum(1 for k, _ in records if k == KIND_STEP)
    for _ in range(rounds):
        if sum(1 for k, _ in client.records if k == KIND_STEP) == want and not client.resyncing:
            break
        server.receive(client.watch_message(), addr, ident.x25519_public_key, now)
        client.ask_now = False
        for _, raw in server.outgoing(records, now):
            client.receive(raw)
        now += WATCH_RENEW_S
    return now


def _steps(records):
    return [p for k, p in records if k == KIND_STEP]


def _switch_case(a_every, b_every, held):
    """The spectator held ``held`` of seat A's records (A's log: a non-step record every
    ``a_every`` steps), A fell silent, it switches to seat B (every ``b_every``) and follows
    B to the end: every step once, in order, B's own records after our last step."""
    base = game_records()
    a = _with_extras(base, a_every, b"A")
    b = _with_extras(base, b_every, b"B")
    seat_a, seat_b = SEAT, Identity.from_seed(b"seat-b")
    ident, client = spectator()
    _follow(client, ident, WatchServer(seat_a, GID), a[:held])
    assert client.records == a[:held]
    dropped = client.switch(seat_b.public_key)
    last = max(i for i, (k, _) in enumerate(a[:held]) if k == KIND_STEP)
    assert dropped == held - last - 1 and client.records == a[:last + 1]
    _follow(client, ident, WatchServer(seat_b, GID), b)
    assert _steps(client.records) == _steps(base)
    k = len(_steps(a[:last + 1]))
    tail = b[[i for i, (kind, _) in enumerate(b) if kind == KIND_STEP][k - 1] + 1:]
    assert client.records == a[:last + 1] + tail
    return client


def test_a_spectator_switches_seat_and_resumes_from_the_step_it_holds():
    # B logged more non-step records before our step (its numbers are ahead of ours)...
    client = _switch_case(a_every=50, b_every=7, held=120)
    assert client.offset > 0 and client.stats["resynced"] == 1 and "resync_restart" not in client.stats
    # ... or fewer (behind ours, within the margin): found without starting over.
    client = _switch_case(a_every=20, b_every=1000, held=120)
    assert client.offset < 0 and "resync_restart" not in client.stats


def test_a_resync_asked_too_late_starts_over_from_the_header():
    # A logged many more non-step records than B: asking RESYNC_MARGIN records before our last
    # step lands after it in B's log; the spectator asks again from B's header.
    client = _switch_case(a_every=2, b_every=1000, held=150)
    assert client.stats["resync_restart"] >= 1 and client.stats["resynced"] == 1
    assert RESYNC_MARGIN < 150 // 3


def test_a_switch_with_only_the_header_keeps_it_and_asks_from_record_one():
    ident, client = spectator()
    records = game_records()
    client.records = records[:1] + [(KIND_COMPLAINT, b"x")]
    assert client.switch(Identity.from_seed(b"seat-b").public_key) == 1
    assert client.records == records[:1] and not client.resyncing
    _follow(client, ident, WatchServer(Identity.from_seed(b"seat-b"), GID), records)
    assert client.records == records


def test_records_of_the_old_server_are_dropped_after_a_switch():
    records = game_records()
    ident, client = spectator()
    old = WatchServer(SEAT, GID)
    _follow(client, ident, old, records[:60])
    client.switch(Identity.from_seed(b"seat-b").public_key)
    held = list(client.records)
    heard = client.heard
    old.receive(client.watch_message(), "a", ident.x25519_public_key, 100.0)
    for _, raw in old.outgoing(records, 100.0):  # the old seat comes back: not ours any more
        assert client.receive(raw) == 0
    assert client.records == held and client.heard == heard and client.stats["bad_signature"] >= 1


def test_a_live_server_answers_every_renewal_even_with_nothing_new():
    records = game_records()
    server = WatchServer(SEAT, GID)
    ident, client = spectator()
    now = _follow(client, ident, server, records)
    for k in range(3):  # the game waits (a player thinks): each renewal still gets an answer
        server.receive(client.watch_message(), ("10.0.0.9", 5000), ident.x25519_public_key, now + k)
        out = server.outgoing(records, now + k)
        assert len(out) == 1 and client.receive(out[0][1]) == 0
    assert client.heard >= 3 and server.stats["alive"] >= 3


def test_records_lost_on_the_way_are_sent_again_after_a_renewal_without_progress():
    """A batch that never left the seat (WatchService counts a failed send and goes on) made the
    spectator drop every later batch as a gap, for ever: its renewals still got answers, so it
    never moved to another seat either. A renewal whose ``have`` did not move since the last
    one, below what had been sent then, makes the seat send again from ``have`` (§N10)."""
    records = game_records()
    server = WatchServer(SEAT, GID)
    ident, client = spectator()
    addr = ("10.0.0.9", 5000)
    server.receive(client.watch_message(), addr, ident.x25519_public_key, 0.0)
    first = server.outgoing(records, 0.0)
    assert len(first) >= 3
    client.receive(first[0][1])  # the second batch is lost, the next ones arrive after a gap
    for _, raw in first[2:]:
        client.receive(raw)
    held = len(client.records)
    assert 0 < held < len(records) and client.stats["gap"] >= 1
    now = 0.0
    for _ in range(3):  # renewals: the first shows no loss yet, the second no progress
        now += WATCH_RENEW_S
        server.receive(client.watch_message(), addr, ident.x25519_public_key, now)
        for _, raw in server.outgoing(records, now):
            client.receive(raw)
    assert client.records == records and server.stats["resent"] == 1


def test_a_slow_spectator_that_progresses_is_never_sent_a_record_twice():
    records = game_records()
    server = WatchServer(SEAT, GID)
    ident, client = spectator()
    addr = ("10.0.0.9", 5000)
    server.receive(client.watch_message(), addr, ident.x25519_public_key, 0.0)
    queue = list(server.outgoing(records, 0.0))  # in flight: one batch arrives per renewal
    now = 0.0
    while queue:
        client.receive(queue.pop(0)[1])
        now += WATCH_RENEW_S
        server.receive(client.watch_message(), addr, ident.x25519_public_key, now)
        for _, raw in server.outgoing(records, now):
            assert client.receive(raw) == 0  # the empty answer only: nothing sent twice
    assert client.records == records and server.stats.get("resent", 0) == 0


def test_each_record_keeps_the_signed_envelope_of_the_seat_that_sent_it_and_a_switch_can_cut_before_it():
    """§N10 "A seat that lies": the spectator knows which seat sent each record (its signed
    RECORDS, kept as evidence), also across a switch, finds the first record that may belong to
    a step that failed (``cut_before``) and resumes from before it with another seat."""
    from p2p.wire import decode_records, open_as

    records = game_records()  # the header, then one STEP record per step: step k is record k + 1
    ident, client = spectator()
    seat_b = Identity.from_seed(b"seat-b")
    _follow(client, ident, WatchServer(SEAT, GID), records[:60])
    client.switch(seat_b.public_key)
    _follow(client, ident, WatchServer(seat_b, GID), records[:120])
    assert client.records == records[:120] and len(client.sources) == 120
    assert client.source(30)[0] == SEAT.public_key and client.source(100)[0] == seat_b.public_key
    assert client.source(120) is None
    env, msg = open_as(client.source(30)[1], MSG_RECORDS, decode_records, C.MAX_WATCH_MSG)
    assert env.verify(SEAT.public_key) and list(records[30]) in [list(r) for r in msg.records]
    cut = client.cut_before(29)
    assert cut == 30 and client.source(cut)[0] == SEAT.public_key  # step 29 came from the first seat
    assert client.cut_before(0) == 1 and client.cut_before(10_000) == 120
    assert client.switch(seat_b.public_key, cut) == 120 - 30
    assert client.records == records[:30] and len(client.sources) == 30 and client.resyncing
    _follow(client, ident, WatchServer(seat_b, GID), records)
    assert client.records == records and client.source(30)[0] == seat_b.public_key


def test_a_finished_seat_owes_records_only_to_spectators_that_answered_it():
    """§N4 "Draining", §N10: ``owed`` holds a finished seat back while a spectator whose address
    acknowledged us lacks records or acknowledgements; a subscription from a spoofed address
    (never acknowledged: not ``reached``) owes nothing, so it cannot keep the seat open."""
    records = game_records()
    server = WatchServer(SEAT, GID)
    ident, client = spectator()
    acked = {"real": False, "spoofed": False}  # the spoofed address never acknowledges
    settled = acked.get
    server.receive(client.watch_message(), "real", ident.x25519_public_key, 0.0)
    spoof_ident, spoof = spectator(b"spoofed")
    server.receive(spoof.watch_message(), "spoofed", spoof_ident.x25519_public_key, 0.0)
    server.outgoing(records, 0.0, settled)  # the probe answers: nothing reached yet
    assert not server.owed(len(records), 0.0, settled)  # nobody answered: nothing owed
    acked["real"] = True
    first = records[:10]
    for addr, raw in server.outgoing(first, 0.1, settled):  # "real" acknowledged its probe: records
        if addr == "real":
            client.receive(raw)
    assert server.subs["real"].reached and not server.subs["spoofed"].reached
    acked["real"] = False  # the records are in flight
    assert server.owed(len(first), 0.1, settled)
    acked["real"] = True  # acknowledged: nothing owed, until the game logs more
    assert client.records == first and not server.owed(len(first), 0.1, settled)
    assert server.owed(len(records), 0.2, settled)
    for addr, raw in server.outgoing(records, 0.2, settled):
        if addr == "real":
            client.receive(raw)
    assert client.records == records and not server.owed(len(records), 0.2, settled)
    assert not server.owed(len(records), WATCH_TTL_S + 1, settled)  # lapsed: forgotten
