"""Forced reveals in records (protocol.md §C3.8, version 4; issue 14): at a plain chance step a
seat's forced body is taken WHATEVER its signature by every consumer of STEP records — ``lanopoli
verify`` (§C6, ``verify._replay``), a restart's replay of its own log (§C10, ``resume`` through
``record_ingest``), a catch-up page (§C9, ``record_ingest.ingest_step_record``) and a spectator
(§N10, ``ui.watch.verify_records``) — while a validly signed body with other fields there is
refused ("a chance step's message must be its forced body") and every other message still needs
its signature ("bad signature"). No proof rests on a forced body's bad signature (§C8.8:
``Referee.prove``, ``RecordIngest.cross_check``).

The logs are those of a 3-seat fake-engine game (tests/p2p/p2p_harness.py) in which seat 1's
forced reveals are rewritten with a garbage signature, as a v4 peer that held them unchecked
logs them."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from types import SimpleNamespace

import fake_engine as E

from p2p.bodies import EscrowAck
from p2p.catchup import ingest_response
from p2p.complaints import EQUIVOCATION
from p2p.forced import forced_body
from p2p.gamelog import KIND_HEADER, KIND_STEP, STEP_RECORD, LogReader, LogWriter
from p2p.log_checks import NOT_FORCED
from p2p.lockstep import CheaterProven
from p2p.resume import resume_session
from p2p.verify import verify_log
from p2p.wire import MSG_STEP, decode_step_body, encode_step, open_envelope, pack, sign_body

from p2p_harness import Net, random_legal
from test_resilience import logged_game

STEPS = 30
SEAT = 1  # the seat whose forced reveals carry garbage signatures
GARBAGE = b"\x5a" * 64
_GAME: dict = {}


def _stop(net):
    """Every peer stops (``Net.run`` returns) once seat 0 reached step STEPS."""
    if net.s[0] is not None and net.s[0].step >= STEPS:
        net.s[:] = [None] * len(net.s)


def game() -> dict:
    """One 3-seat fake-engine game of STEPS steps, played once per test run: seat 0's log
    records (header payload, STEP payloads), the lobbies in seat order."""
    if not _GAME:
        d = Path(tempfile.mkdtemp(prefix="lanopoli-test-forced-"))
        atexit.register(shutil.rmtree, d, True)
        sessions, paths, _, ordered = logged_game(d, 3, {"target": 400})
        Net(list(sessions), random_legal(E, seed=3)).run(max_time=1e5, hook=_stop)
        recs = list(LogReader(paths[0]))
        assert recs[0].kind == KIND_HEADER and all(r.kind == KIND_STEP for r in recs[1:])
        _GAME.update(header=recs[0].payload, steps=[r.payload for r in recs[1:]], lobbies=ordered)
    return _GAME


def messages(payload: bytes) -> tuple[int, list]:
    rec = STEP_RECORD.decode(payload)
    return rec.step, list(rec.messages)


def record(step: int, msgs: list) -> bytes:
    return STEP_RECORD.encode(STEP_RECORD.decode(game()["steps"][0])._replace(step=step, messages=msgs))


def is_reveal(raw: bytes) -> bool:
    """True if ``raw``'s body is its seat's forced body (6 fields, a 32-byte reveal): in this
    game (no seat loss, so no escrow round; no hidden information) every chance step is plain."""
    env = open_envelope(raw)
    b = decode_step_body(env.body)
    return type(b.input) is bytes and env.body == forced_body(b.game_id, b.step, b.seat, b.prev_hash,
                                                               b.prev_digest, b.input)


def garbled(raw: bytes) -> bytes:
    """``raw`` with a garbage signature."""
    return pack([MSG_STEP, open_envelope(raw).body, GARBAGE])


def garbled_steps() -> list[bytes]:
    """The game's STEP payloads with every forced reveal of SEAT garbage-signed."""
    out = []
    for payload in game()["steps"]:
        step, msgs = messages(payload)
        if is_reveal(msgs[SEAT]):
            msgs[SEAT] = garbled(msgs[SEAT])
        out.append(record(step, msgs))
    return out


def chance_steps() -> list[int]:
    return [k for k, p in enumerate(game()["steps"]) if is_reveal(messages(p)[1][SEAT])]


def decision_steps() -> list[int]:
    return [k for k, p in enumerate(game()["steps"]) if not is_reveal(messages(p)[1][SEAT])]


def with_acks(raw: bytes) -> bytes:
    """SEAT's forced body ``raw`` re-signed by SEAT with an acknowledgement (a 9th field): a
    validly signed body with other fields at a plain chance step."""
    b = decode_step_body(open_envelope(raw).body)
    body = encode_step(b._replace(acks=(EscrowAck(0, 0, bytes(32)),)))
    return sign_body(game()["lobbies"][SEAT].identity, MSG_STEP, body).raw


def replaced(step: int, raw: bytes) -> list[bytes]:
    """The (garbled) game with SEAT's message of ``step`` replaced by ``raw``."""
    steps = garbled_steps()
    k, msgs = messages(steps[step])
    msgs[SEAT] = raw
    steps[step] = record(k, msgs)
    return steps


def write_log(path: Path, steps: list[bytes]) -> Path:
    w = LogWriter(path, game()["header"])
    for payload in steps:
        k, msgs = messages(payload)
        w.append_step(k, msgs)
    w.close()
    return path


def caught_up(tmp_path: Path, steps: list[bytes]) -> tuple:
    """Seat 0 restarted from a log holding only the header, then handed ``steps`` as one
    catch-up page from seat 2 (§C9): (session, why the page was refused or None)."""
    lob = game()["lobbies"][0]
    sess, _ = resume_session(write_log(tmp_path / "c.log", []), lob.identity, lob.chain_secret, E)
    page = SimpleNamespace(records=[[KIND_STEP, p] for p in steps], seat=2, escrows=[], pending=[])
    return sess, ingest_response(sess, page, 0.0)


def test_the_game_has_forced_reveals_of_the_seat():
    assert len(chance_steps()) >= STEPS // 3 and decision_steps()


def test_verify_takes_garbage_signed_forced_reveals(tmp_path):
    """§C3.8, §C6 ``verify``: the log passes, every message counted."""
    rep = verify_log(write_log(tmp_path / "v.log", garbled_steps()), engine=E)
    assert rep.ok, rep.error
    assert rep.steps == STEPS and rep.messages == 3 * STEPS


def test_a_restart_replays_garbage_signed_forced_reveals(tmp_path):
    """§C3.8, §C10 restart: resume_session replays the whole log (no damage)."""
    lob = game()["lobbies"][0]
    sess, rr = resume_session(write_log(tmp_path / "r.log", garbled_steps()), lob.identity, lob.chain_secret, E)
    assert rr.damage is None and rr.steps == STEPS and sess.step == STEPS


def test_a_catch_up_passes_garbage_signed_forced_reveals(tmp_path):
    """§C3.8, §C9 catch-up: the page is applied to its end."""
    sess, why = caught_up(tmp_path, garbled_steps())
    assert why is None and sess.step == STEPS and sess.phase == "running"


def test_a_spectator_passes_garbage_signed_forced_reveals(tmp_path):
    """§C3.8, §N10 spectators: the records a seat serves (``WatchServer``/``WatchClient``) pass
    the spectator's replay (``ui.watch.verify_records``)."""
    from p2p.identity import Identity
    from p2p.spectate import WatchClient, WatchServer
    from ui.watch import verify_records

    g = game()
    host = g["lobbies"][0]
    records = [(KIND_HEADER, g["header"])] + [(KIND_STEP, p) for p in garbled_steps()]
    server = WatchServer(host.identity, host.game_id)
    prof = Identity.from_seed(b"prof")
    client = WatchClient(prof, host.game_id, host.identity.public_key, "Prof")
    now = 0.0
    while len(client.records) < len(records) and now < 60:
        server.receive(client.watch_message(), ("10.0.0.9", 5000), prof.x25519_public_key, now)
        for _, raw in server.outgoing(records, now):
            client.receive(raw)
        now += 0.25
    assert client.records == records
    report, _ = verify_records(write_log(tmp_path / "w.log", [p for _, p in client.records[1:]]), E)
    assert report.ok and report.steps == STEPS, report.error


def test_a_signed_body_with_acks_at_a_plain_chance_step_is_refused(tmp_path):
    """§C3.8: a validly signed reveal WITH acknowledgements at a plain chance step is refused by
    verify (§C6), a restart (§C10) and a catch-up (§C9), with that reason."""
    k = chance_steps()[4]
    refused_everywhere(tmp_path, k, with_acks(messages(game()["steps"][k])[1][SEAT]), NOT_FORCED)


def test_a_garbage_signed_action_is_still_refused(tmp_path):
    """§C3.4: only a forced body goes unchecked; a decision step's message with a garbage
    signature is refused ("bad signature") by verify, a restart and a catch-up."""
    k = decision_steps()[3]
    refused_everywhere(tmp_path, k, garbled(messages(game()["steps"][k])[1][SEAT]), "bad signature")


def refused_everywhere(tmp_path: Path, k: int, raw: bytes, why: str) -> None:
    """The garbled game with SEAT's message of step ``k`` replaced by ``raw`` is refused at
    step ``k``, for ``why``, by verify (§C6), a restart (§C10) and a catch-up (§C9)."""
    steps = replaced(k, raw)
    want = f"seat {SEAT}: {why}"
    rep = verify_log(write_log(tmp_path / "v.log", steps), engine=E)
    assert not rep.ok and rep.first_bad_step == k and rep.error == want
    lob = game()["lobbies"][0]
    _, rr = resume_session(write_log(tmp_path / "r.log", steps), lob.identity, lob.chain_secret, E)
    assert rr.damage is not None and rr.damage.step == k and want in rr.damage.reason
    sess, got = caught_up(tmp_path, steps)
    assert got is not None and want in got and sess.step == k


def test_a_wrong_reveal_signed_alone_is_refused_by_its_resolution(tmp_path):
    """§C3.8: a signed 6-field body with a wrong reveal is no 'other field': it is checked as
    before version 4, by the step's resolution (the reveal does not hash to the chain)."""
    k = chance_steps()[4]
    b = decode_step_body(open_envelope(messages(game()["steps"][k])[1][SEAT]).body)
    bad = sign_body(game()["lobbies"][SEAT].identity, MSG_STEP, encode_step(b._replace(input=b"\x13" * 32))).raw
    rep = verify_log(write_log(tmp_path / "v.log", replaced(k, bad)), engine=E)
    assert not rep.ok and rep.first_bad_step == k and rep.error.startswith(f"seat {SEAT}: ")
    assert NOT_FORCED not in rep.error and "signature" not in rep.error


def test_no_proof_rests_on_a_garbage_signed_forced_body(tmp_path):
    """§C8.8: a proof built from a forced body with a bad signature is not made
    (``Referee.prove``: no complaint, no CheaterProven, counted ``unproven``), and a peer's
    record with a signed other version of a step whose forced body we applied unchecked is no
    equivocation (``RecordIngest.cross_check``: no halt, no complaint, counted)."""
    sess, why = caught_up(tmp_path, garbled_steps())
    assert why is None
    sess.messages_to_send()
    while sess.next_event() is not None:
        pass
    k = max(c for c in chance_steps() if sess.steps.keeps(c))
    held = sess.steps.held(k, SEAT).env.raw
    assert open_envelope(held).sig == GARBAGE
    other = with_acks(held)
    sess.referee.prove(SEAT, k, EQUIVOCATION, "signed two different messages for one step", [held, other])
    assert sess.stats["unproven"] == 1 and sess.stats["complaints"] == 0
    _, msgs = messages(game()["steps"][k])
    msgs[SEAT] = other
    assert sess.ingest.cross_check(k, msgs, 2) is False
    assert sess.stats["unproven"] == 2 and sess.stats["complaints"] == 0 and sess.phase == "running"
    assert not [e for e in iter(sess.next_event, None) if isinstance(e, CheaterProven)]
    assert sess.messages_to_send() == []


def test_a_proof_on_signed_evidence_is_still_made(tmp_path):
    """§C8.8 (control): the same proof with SEAT's validly signed versions is made."""
    sess, why = caught_up(tmp_path, garbled_steps())
    assert why is None
    k = max(c for c in chance_steps() if sess.steps.keeps(c))
    signed = messages(game()["steps"][k])[1][SEAT]
    sess.referee.prove(SEAT, k, EQUIVOCATION, "signed two different messages for one step", [signed, with_acks(signed)])
    assert sess.stats["complaints"] == 1 and sess.stats.get("unproven", 0) == 0


def test_a_complainers_own_log_ending_before_the_step_it_proved_verifies(tmp_path):
    """§C8.8 kind 2, §C6 verify (H75's finding, pre-existing on v3): with no drop possible, a
    victim that proves a signed wrong reveal halts (CheatDetected) with its COMPLAINT logged
    but not the step's record; ``verify`` judges that trailing complaint at the chance step it
    names (the reveal against the seat's previous one): the log is valid, unfinished, and
    names the cheater."""
    import test_redteam_forced as T

    sessions, paths, _, _ = T.logged_game(tmp_path, 3, T.NO_DROP)
    liar, first = 2, set()

    def lie(src, dst, raw):
        if src != liar or dst != 0 or not T.forced_looking(raw) or T.step_of(raw).step < 4 or raw in first:
            return None
        first.add(raw)
        b = T.step_of(raw)
        return T.seal(sessions[liar].identity, T.MSG_STEP, [b.game_id, b.step, liar, b.prev_hash, b.prev_digest,
                                                            b"\x13" * 32])

    T.KeyedNet(list(sessions), T.random_legal(E, seed=0), lie=lie).run(max_time=300.0)
    assert type(sessions[0].halt_reason).__name__ == "CheatDetected"
    sessions[0].log.close()
    rep = verify_log(paths[0], engine=E)
    assert rep.ok and not rep.complete, rep.error
    assert [(c["seat"], c["complainer"], c["reason"]) for c in rep.cheaters] == \
        [(liar, 0, "reveal does not hash to the previous reveal")]
