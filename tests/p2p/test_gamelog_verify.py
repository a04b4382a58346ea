"""Game log format and offline verification (protocol.md §C6): round trip, crash-truncated tail,
and the first bad step named for a flipped byte, reordered messages and a forged signature."""

from __future__ import annotations

import struct
import zlib

import msgpack
import pytest

import fake_engine as E
from p2p import const as C
from p2p.errors import LocalProtocolError
from p2p.gamelog import KIND_HEADER, KIND_STEP, LogReader, LogWriter
from p2p.lockstep import GameOver
from p2p.verify import verify_log
from p2p.wire import MSG_STEP, decode_step_body, open_envelope, pack

from p2p_harness import Net, make_lobbies, pump_lobbies, random_legal


@pytest.fixture
def played(tmp_path):
    """A finished 3-seat game; every peer logged it. Returns (paths, game-over event,
    identities in seat order)."""
    lobbies = make_lobbies(3, options={"target": 20})
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda l: l.my_seat)
    paths = [tmp_path / f"peer{i}.log" for i in range(3)]
    writers = [LogWriter(p, l.log_header()) for p, l in zip(paths, ordered)]
    sessions = [l.start_session(E, log=w) for l, w in zip(ordered, writers)]
    net = Net(sessions, random_legal(E, seed=11))
    net.run()
    for w in writers:
        w.close()
    over = [e for e in net.events[0] if isinstance(e, GameOver)][0]
    return paths, over, [l.identity for l in ordered]


def records(path):
    return [(r.kind, r.payload) for r in LogReader(path)]


def write_records(path, recs):
    """Write a log by hand from the documented format (protocol.md §C6)."""
    with open(path, "wb") as f:
        f.write(b"LNPLOG1\n")
        for kind, payload in recs:
            kp = bytes((kind,)) + payload
            f.write(struct.pack(">IB", len(payload), kind) + payload + struct.pack(">I", zlib.crc32(kp)))


def test_logs_round_trip_and_are_identical_on_every_peer(played):
    paths, over, *_ = played
    blobs = [p.read_bytes() for p in paths]
    assert blobs[0] == blobs[1] == blobs[2]
    recs = records(paths[0])
    assert recs[0][0] == KIND_HEADER and all(k == KIND_STEP for k, _ in recs[1:])
    assert len(recs) - 1 == over.steps + 1  # + the final attestation (protocol.md §C3.5)
    step, msgs = msgpack.unpackb(recs[5][1])
    assert step == 4 and len(msgs) == 3
    write_records(paths[0].with_suffix(".copy"), recs)  # the documented format, written by hand
    assert paths[0].with_suffix(".copy").read_bytes() == blobs[0]


def _verify_written(path, recs):
    """``verify_log`` of ``recs`` (``(kind, payload)`` pairs) written to ``path`` in the log format:
    how each test below checks the log it tampered with."""
    write_records(path, recs)
    return verify_log(path, engine=E)


def test_verify_passes_on_a_good_log(played):
    paths, over, *_ = played
    rep = verify_log(paths[0], engine=E)
    assert rep.ok and rep.complete and rep.error is None and rep.first_bad_step is None
    assert rep.steps == over.steps and rep.winner == over.winner
    assert rep.final_state_hash == over.final_hash.hex()
    assert rep.edition == "race" and {n for n, _ in rep.seats} == {"p0", "p1", "p2"}
    assert all(len(fp) == 16 for _, fp in rep.seats)
    assert rep.messages == 3 * (over.steps + 1)
    assert rep.events_by_type.get("Moved", 0) >= 1


def test_truncated_tail_is_detected_with_offset(played):
    paths, over, *_ = played
    data = paths[0].read_bytes()
    paths[0].write_bytes(data[:-3])
    reader = LogReader(paths[0])
    recs = list(reader)
    assert len(recs) == over.steps + 1  # the header + all steps, not the final attestation
    assert reader.error == "truncated record" and reader.error_offset == recs[-1].offset + 5 + len(recs[-1].payload) + 4
    rep = verify_log(paths[0], engine=E)
    assert not rep.ok and rep.first_bad_step == over.steps and "truncated" in rep.error


def test_flipped_byte_names_its_step(played):
    paths, *_ = played
    recs = LogReader(paths[0])
    offset = [r for r in recs][8].offset  # step 7's record
    data = bytearray(paths[0].read_bytes())
    data[offset + 5 + 40] ^= 0x01
    paths[0].write_bytes(bytes(data))
    rep = verify_log(paths[0], engine=E)
    assert not rep.ok and rep.first_bad_step == 7


def test_reordered_messages_name_the_step(played):
    paths, *_ = played
    recs = records(paths[0])
    step, msgs = msgpack.unpackb(recs[6][1])
    recs[6] = (KIND_STEP, msgpack.packb([step, [msgs[1], msgs[0], msgs[2]]]))
    rep = _verify_written(paths[1], recs)
    assert not rep.ok and rep.first_bad_step == 5 and "seat" in rep.error


def test_swapped_step_records_name_the_step(played):
    paths, *_ = played
    recs = records(paths[0])
    recs[4], recs[5] = recs[5], recs[4]
    rep = _verify_written(paths[1], recs)
    assert not rep.ok and rep.first_bad_step == 3


def test_forged_signature_names_the_step(played):
    """A decision step's message (a plain chance step's forced body is taken whatever its
    signature since version 4, §C3.8: tests/p2p/test_forced_records.py)."""
    paths, *_ = played
    recs = records(paths[0])
    at = next(i for i in range(10, len(recs)) if recs[i][0] == KIND_STEP
              and type(decode_step_body(open_envelope(msgpack.unpackb(recs[i][1])[1][2]).body).input) is not bytes)
    step, msgs = msgpack.unpackb(recs[at][1])
    env = open_envelope(msgs[2])
    msgs[2] = pack([env.mtype, env.body, bytes(64)])
    recs[at] = (KIND_STEP, msgpack.packb([step, msgs]))
    rep = _verify_written(paths[1], recs)
    assert not rep.ok and rep.first_bad_step == step and "signature" in rep.error


def test_tampered_header_is_step_minus_one(played):
    paths, *_ = played
    recs = records(paths[0])
    version, sb, sigs, seeds = msgpack.unpackb(recs[0][1])
    seeds[0], seeds[1] = seeds[1], seeds[0]
    recs[0] = (KIND_HEADER, msgpack.packb([version, sb, sigs, seeds]))
    rep = _verify_written(paths[1], recs)
    assert not rep.ok and rep.first_bad_step == -1


def test_log_of_another_protocol_version_is_refused_at_the_header(played):
    """protocol.md §E0 "Versioning": another version plays by other rules, so verify names the
    version instead of replaying it with ours (the setup's first field, §C2.3)."""
    paths, *_ = played
    recs = records(paths[0])
    version, sb, sigs, seeds = msgpack.unpackb(recs[0][1])
    setup = msgpack.unpackb(sb)
    assert setup[0] == C.PROTOCOL_VERSION
    setup[0] = C.PROTOCOL_VERSION - 1
    recs[0] = (KIND_HEADER, msgpack.packb([version, msgpack.packb(setup), sigs, seeds]))
    rep = _verify_written(paths[1], recs)
    assert not rep.ok and rep.first_bad_step == -1
    assert f"protocol version {C.PROTOCOL_VERSION - 1}" in rep.error


def test_writer_refuses_out_of_order_steps_and_overwrite(tmp_path):
    p = tmp_path / "x.log"
    with LogWriter(p, b"\x90") as w:
        with pytest.raises(LocalProtocolError):
            w.append_step(1, [])
    with pytest.raises(FileExistsError):
        LogWriter(p, b"\x90")


def test_not_a_log():
    import tempfile, os
    with tempfile.NamedTemporaryFile(delete=False) as f:
        f.write(b"hello")
    rep = verify_log(f.name, engine=E)
    os.unlink(f.name)
    assert not rep.ok and rep.first_bad_step == -1 and "magic" in rep.error


def test_log_ends_with_every_seat_attesting_the_final_state(played):
    """protocol.md §C3.5: after the terminal step every seat signs STEP ``steps`` with input
    nil, the final state hash and the last step's digest; it is the log's last record."""
    paths, over, _ = played
    step, raws = msgpack.unpackb(records(paths[0])[-1][1])
    assert step == over.steps and len(raws) == 3
    for seat, raw in enumerate(raws):
        body = msgpack.unpackb(open_envelope(raw).body)
        assert body[1:3] == [over.steps, seat] and body[3] == over.final_hash and body[5] is None


def test_log_without_the_attestation_is_valid_but_incomplete(played):
    paths, over, _ = played
    write_records(paths[1], records(paths[0])[:-1])
    rep = verify_log(paths[1], engine=E)
    assert rep.ok and not rep.complete and rep.steps == over.steps


def test_last_step_replaced_and_resigned_by_its_own_seat_fails_at_the_attestation(played):
    """A seat re-signs a different message of the last step with its own key: no later step
    used to cover it; now every seat's attestation carries the digest of the last step's
    messages, so verify names the attestation step (protocol.md §C3.5)."""
    paths, over, ids = played
    recs = records(paths[0])
    last = over.steps - 1
    step, raws = msgpack.unpackb(recs[-2][1])
    assert step == last
    seat = 1
    body = msgpack.unpackb(open_envelope(raws[seat]).body)
    body[5] = None if body[5] is not None else [0]  # another input, validly signed by seat 1
    new_body = pack(body)
    raws[seat] = pack([MSG_STEP, new_body, ids[seat].sign(C.DOMAIN_STEP, new_body)])
    recs[-2] = (KIND_STEP, pack([step, raws]))
    rep = _verify_written(paths[1], recs)
    assert not rep.ok and rep.first_bad_step == last and "altered" in rep.error


@pytest.mark.parametrize("seat", [0, 2])
def test_input_changed_and_resigned_mid_game_names_the_changed_step(played, seat):
    """Issue 9 item 4: an input of step k replaced and re-signed with its seat's key. Every
    seat's step k+1 message signed over the original messages (prev digest), so verify names
    step k, not k+1."""
    paths, over, ids = played
    recs = records(paths[0])
    k = None
    for idx in range(4, len(recs) - 3):
        step, raws = msgpack.unpackb(recs[idx][1])
        body = msgpack.unpackb(open_envelope(raws[seat]).body)
        if type(body[5]) is not bytes:  # a decision step: the input is an action or nil
            k = step
            break
    assert k is not None
    body[5] = [0] if body[5] is None else None
    new_body = pack(body)
    raws[seat] = pack([MSG_STEP, new_body, ids[seat].sign(C.DOMAIN_STEP, new_body)])
    recs[idx] = (KIND_STEP, pack([step, raws]))
    rep = _verify_written(paths[1], recs)
    assert not rep.ok and rep.first_bad_step == k, (rep.first_bad_step, k, rep.error)
