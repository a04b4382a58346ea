"""Resume a session from its own game log after a crash (protocol.md §C10).

``resume_session`` reads the log with ``gamelog.LogReader`` and replays every record through a
fresh ``LockstepSession`` with the same checks as live messages (signatures — a plain chance
step's forced body is taken whatever its signature, protocol.md §C3.8 —, game id, steps, seats,
prev hash and digest, reveals, drop votes; ``record_ingest``). It stops at the first record that is
truncated, fails its checksum or fails a check, reports that step (``LogDamage``), keeps
everything valid before it, moves the damaged tail aside (``<log>.damaged-<offset>``, nothing
signed is thrown away) and continues appending after the last good record. The hash-chain
position follows from the replayed chance steps; the escrow of the current epoch is re-created
(it is deterministic); our own message of the current step, if the own-message log has it, is
re-sent byte for byte (so a restart never signs two different messages for one step); so are
our messages of later steps (the log was cut by damage), when the catch-up reaches them. Then the
session asks the other peers for the steps it lacks (CATCHUP_REQ) and carries on.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .beacon import HashChain
from .bulk_verify import LogAhead
from .errors import LocalProtocolError, WireError
from .gamelog import (DROP_RECORD, KIND_ABANDON, KIND_COMPLAINT, KIND_DROP, KIND_HEADER, KIND_OWN, KIND_SKIP, KIND_STEP,
                      OWN_RECORD, SKIP_RECORD, STEP_RECORD, LogReader, LogWriter, OwnLog)
from .identity import Identity
from .lockstep import HALTED, LockstepSession
from .log_checks import BadLog, hidden_commits_of_header, parse_header
from .sealed import candidates, commit_of
from .wire import MSG_DROP, MSG_ESCROW, MSG_SKIP, decode_drop, decode_escrow, open_envelope

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam p2p sees; the caller passes the engine)
    from engine.api import Engine


RESUME_SUFFIX = ".resume"  # <log>.resume: chain secret + endpoints, mode 0600, removed at GameOver
OWN_SUFFIX = ".own"  # <log>.own: our own signed step messages (protocol.md §C6)


#: The records of the game log that belong to a step, by kind: their tables (gamelog.py) give
#: the step. ABANDON and COMPLAINT records are signed envelopes, of the current step.
_STEP_RECORDS = {KIND_STEP: STEP_RECORD, KIND_DROP: DROP_RECORD, KIND_SKIP: SKIP_RECORD}


def _voter(raw: bytes) -> int | None:
    """The voter of ``raw`` if it is a DROP vote (our own-message log also keeps the other votes
    of a quorum we released on, version 5, §C8.3 rule (c)), else None."""
    try:
        env = open_envelope(raw)
        return decode_drop(env.body).voter if env.mtype == MSG_DROP else None
    except WireError:
        return None


def _is_escrow(raw: bytes) -> bool:
    """True if ``raw`` (an envelope from our own-message log) is another seat's ESCROW, kept
    there when we held it (version 5: our share survives a restart, §C8.2)."""
    return raw[:2] == bytes((0x93, MSG_ESCROW))


def _is_drop(raw: bytes) -> bool:
    """True if ``raw`` (an envelope from our own-message log) is a DROP or SKIP vote (§C8.10),
    not a STEP: the msgpack array header 0x93 then the message type (protocol.md §C1 envelope)."""
    return raw[:2] in (bytes((0x93, MSG_DROP)), bytes((0x93, MSG_SKIP)))


class Restart:
    """What a resumed session still owes to its previous run (protocol.md §C10, §C13.4), owned
    by that ``LockstepSession`` (``restart=``), which calls ``reached`` when it begins a step
    and ``recover_opening`` when it must open a sealed decision.

    It holds our signed messages of steps after the replayed ones (a log cut by damage
    comes back by catch-up, and at each of those steps we re-send what we signed then, never
    sign another): step -> STEP envelope, step -> DROP envelopes. It reads and calls only the
    session's public members.

    It also keeps the promise those messages made (§C8.3 'A voter's promise', §C10 'No vote
    below our signed step'): ``signed_to`` is the highest step of a message of ours it holds
    (STEP, DROP or SKIP: we were at that step, so we had applied every step below it with every
    active seat's message, or a seat's drop or skip); ``promised`` bars our DROP and SKIP votes
    at the steps below it until the session reaches ``signed_to``, or a step whose STEP of ours
    no longer fits the history (a drop we had not applied changed it).
    """

    __slots__ = ("_steps", "_votes", "signed_to")

    def __init__(self) -> None:
        self._steps: dict[int, bytes] = {}
        self._votes: dict[int, list[bytes]] = {}
        #: The highest step of a message of ours (signed before the restart) that we hold and
        #: have not reached again, or -1: no vote at the steps below it (``promised``).
        self.signed_to = -1

    def keep(self, step: int, raw: bytes, own: bool = True) -> None:
        """Keep ``raw``, our own signed STEP or DROP envelope of ``step`` (after the session's
        current step) from our own-message log. A message signed over another history (a
        drop changed the step, §C8.3) is refused when the step comes by ``OwnStep.adopt_own`` /
        ``SessionVotes.adopt``. ``own`` False: another voter's DROP vote kept there with our
        release (version 5, §C8.3 rule (c)): adopted at its step, no promise of ours."""
        if _is_drop(raw):
            self._votes.setdefault(step, []).append(raw)
        else:
            self._steps[step] = raw
        if own:
            self.signed_to = max(self.signed_to, step)

    def promised(self, step: int) -> bool:
        """True if we may cast no DROP or SKIP vote at ``step`` (our current step): we hold a
        message of ours of a later step, signed before the restart over a history in which we
        had applied ``step`` (§C8.3 'A voter's promise': our STEP of ``step`` + 1, or our DROP
        vote of it, counts in the voters' certificates as our seat never voting at ``step``;
        §C10)."""
        return step < self.signed_to

    def reached(self, session: LockstepSession) -> None:
        """``session`` begins its current step: adopt what we signed for it before the restart
        (our STEP unless our seat was dropped, our DROP votes), forget older steps. The promise
        (``promised``) ends at ``signed_to``, or where our STEP no longer fits the history."""
        if not self._steps and not self._votes:
            self.signed_to = -1
            return
        step = session.step
        raw = self._steps.pop(step, None)
        if step >= self.signed_to:
            self.signed_to = -1  # our last signed step reached: we vote there as any peer
        if raw is not None and not session.spectator and not session.own.adopt_own(raw):
            # Signed over another history (a drop at an earlier step changed it, §C8.3): our
            # messages no longer count in any certificate of this one.
            self.signed_to = -1
        for raw in self._votes.pop(step, ()):
            session.votes.adopt(raw)
        for k in [k for k in self._steps if k < step]:
            del self._steps[k]
        for k in [k for k in self._votes if k < step]:
            del self._votes[k]

    @staticmethod
    def recover_opening(session: LockstepSession) -> None:
        """§C13.4: our opening of ``session``'s current open step died with the process (or
        we reach the step again by catch-up after a restart): find our committed input again
        among the inputs we could have sent (the salt is derived from our key, Ed25519 is
        deterministic), so the opening is the same bytes; if not found,
        ``session.sealed.opening()`` stays nil."""
        step = session.step
        own = session.sealed.own()
        if own is not None and own[0] == step - 1:
            return  # we hold our opening of this step
        steps = session.steps
        held = steps.held(step - 1, session.my_seat) if steps.keeps(step - 1) else None
        c = None if held is None else commit_of(held.body.input)
        if c is not None:
            session.sealed.recover(step - 1, c, candidates(session.engine, session.state, session.my_seat))


@dataclass(frozen=True)
class LogDamage:
    """Where our log stops being usable: the first bad record belongs to ``step``, starts at
    byte ``offset``; ``reason`` in English."""

    step: int
    offset: int
    reason: str


@dataclass(frozen=True)
class ResumeReport:
    """What ``resume_session`` found: ``steps`` replayed from the log, ``damage`` (or None),
    ``own_resent``: our signed message of the current step was recovered from the own-message
    log, ``finished``: the log already holds the whole game."""

    steps: int
    damage: LogDamage | None
    own_resent: bool
    finished: bool


def _replay(log_path: str, identity: Identity, chain_secret: bytes, engine: Engine, now: float, bot: Any,
            limit: int | None, truncate_at: int | None, reseat_secret: bytes | None = None) -> tuple:
    reader = LogReader(log_path)
    it = iter(reader)
    first = next(it, None)
    if first is None or first.kind != KIND_HEADER:
        raise LocalProtocolError(f"cannot resume: log header unreadable ({reader.error or 'no header'})")
    try:
        setup, sb, _, seed = parse_header(first.payload)
    except BadLog as e:
        raise LocalProtocolError(f"cannot resume: {e.why}") from None
    seat = next((i for i, p in enumerate(setup.players) if p.public_key == identity.public_key), None)
    if seat is None:
        raise LocalProtocolError("cannot resume: our identity is not seated in this game")
    chain = HashChain(chain_secret, setup.chain_length)
    try:
        commits = hidden_commits_of_header(first.payload)
    except BadLog as e:
        raise LocalProtocolError(f"cannot resume: {e.why}") from None
    restart = Restart()
    sess = LockstepSession(setup, seat, identity, chain, engine, seed, setup_bytes=sb, now=now, bot=bot,
                           hidden_commits=commits, _resuming=True, restart=restart)
    if reseat_secret is not None:
        sess.reseat.restore(reseat_secret)  # a re-seat in the log gives us our new chain (§C8.9)
    good_end = reader.good_end
    damage = None
    count = 0
    ahead = LogAhead(log_path, [p.public_key for p in setup.players])  # signatures in bulk (§C9.2)
    for rec in it:
        ahead.reach(rec.offset)
        problem, f, step = None, None, sess.step
        table = _STEP_RECORDS.get(rec.kind)
        if table is not None:
            try:
                f = table.decode(rec.payload)
                step = f.step
            except WireError as e:
                problem = f"malformed record: {e}"
        if problem is None and ((limit is not None and count >= limit) or (truncate_at is not None and step >= truncate_at)):
            damage = LogDamage(sess.step, rec.offset, "record after the point where our history forked"
                               if truncate_at is not None else "record rejected on a previous pass")
            break
        if problem is None:
            if rec.kind == KIND_STEP:
                problem = sess.ingest.ingest_step_record(step, list(f.messages))
            elif rec.kind == KIND_DROP:
                problem = sess.votes.ingest_record(rec.payload)
            elif rec.kind == KIND_SKIP:
                problem = sess.ingest.ingest_skip_record(rec.payload)
            elif rec.kind in (KIND_COMPLAINT, KIND_ABANDON):
                problem = sess.referee.ingest_record(rec.kind, rec.payload)
            else:
                problem = f"unexpected record kind {rec.kind}"
        if problem is None and sess.phase == HALTED:
            problem = f"{type(sess.halt_reason).__name__} while replaying"
        if problem is not None:
            damage = LogDamage(sess.step, rec.offset, problem)
            break
        count += 1
        good_end = reader.good_end
    else:
        if reader.error is not None:
            damage = LogDamage(sess.step, reader.error_offset, reader.error)
    return sess, damage, good_end, count, restart


def resume_session(log_path: str | os.PathLike[str], identity: Identity, chain_secret: bytes, engine: Engine, *,
                   own_log_path: str | os.PathLike[str] | None = None, now: float = 0.0, bot: Any = None,
                   truncate_at: int | None = None, fsync: bool = False,
                   reseat_secret: bytes | None = None) -> tuple[LockstepSession, ResumeReport]:
    """Rebuild our session from ``log_path`` (protocol.md §C10) and return it with a report.

    ``chain_secret``: our hash-chain secret h_0 (32 bytes, ``Lobby.chain_secret``; the node
    keeps it in a private file); ``own_log_path``: our own-message log (``<log>.own``), read
    for the current step's message and then appended to; ``truncate_at``: drop our records
    from that step on (after ``SeatLost``); ``reseat_secret``: the secret of our last request
    to play our dropped seat again (``reseat.write_secret_file``, protocol.md §C8.9), so a
    re-seat in the log gives us our new chain. The session continues the log after its last good
    record and has a CATCHUP_REQ queued (``messages_to_send``). Raises
    ``LocalProtocolError`` if the header is unreadable or we are not seated in the game.
    """
    log_path = os.fspath(log_path)
    sess, damage, good_end, count, restart = _replay(log_path, identity, chain_secret, engine, now, bot, None,
                                                     truncate_at, reseat_secret)
    if sess.phase == HALTED:  # a record that passed its checksum but not the checks: replay up to it
        sess, _, good_end, count, restart = _replay(log_path, identity, chain_secret, engine, now, bot, count,
                                                    truncate_at, reseat_secret)
    own_resent = False
    if own_log_path is not None and os.path.exists(own_log_path):
        mine = None
        votes = []
        for rec in LogReader(own_log_path):
            try:
                step, raw = OWN_RECORD.decode(rec.payload)
            except WireError:
                break
            if rec.kind == KIND_OWN and _is_escrow(raw):
                _hold_escrow(sess, raw)  # of the current epoch only (the others are ignored)
            elif rec.kind == KIND_OWN and step == sess.step:
                if _is_drop(raw):
                    votes.append(raw)  # our drop votes of this step: never sign another (§C8.3)
                else:
                    mine = raw
            elif rec.kind == KIND_OWN and step > sess.step:
                # A damaged log replays fewer steps than we played: the catch-up brings us to
                # these steps again, and there we re-send these bytes, sign nothing else.
                # After a roll back (``truncate_at``: SeatLost, StepOverturned) these were signed over
                # the history the others overturned: they fit no certificate of the new one, so
                # they promise nothing (s12 #4: the promise withheld the vote a quorum waited for).
                restart.keep(step, raw, own=truncate_at is None and _voter(raw) in (None, sess.my_seat))
        if mine is not None:
            own_resent = sess.own.adopt_own(mine)
        for raw in votes:
            sess.votes.adopt(raw)
    log = LogWriter.reopen(log_path, good_end, sess.step, fsync=fsync)
    sess.end_replay(log, None if own_log_path is None else OwnLog(own_log_path, fsync=fsync), now)
    finished = sess.phase != "running"
    return sess, ResumeReport(sess.step, damage, own_resent, finished)


def _hold_escrow(sess: LockstepSession, raw: bytes) -> None:
    """Hold again an ESCROW we had held before the restart (from the own-message log): our share
    of its dealer, which a released DROP vote carries (§C8.2, §C8.3 rule (b)). Only one of the
    current epoch from an active seat counts (``SeatLoss.receive_escrow`` checks it again); a bad
    share was proven before the restart and is not proven again."""
    try:
        env = open_envelope(raw)
        sess.seats.receive_escrow(env, decode_escrow(env.body), sess.step, sess.spectator)
    except WireError:
        return


# -- the resume files of a running game (protocol.md §C10, §N5) --------------------------------

def write_resume_file(path: Path, chain_secret: bytes, seat: int, endpoints: list) -> None:
    """Write ``<log>.resume`` (mode 0600, created private, never world-readable even for an
    instant): JSON ``{"version": 1, "chain_secret": hex of our 32-byte hash-chain secret h_0,
    "seat": our seat, "endpoints": [[host, port], ...] every seat's transport address}``. The
    secret is not in the log (protocol.md §C10) and anyone holding it knows our future reveals;
    the endpoints are where each seat is now (the signed setup holds where each seat was at the
    start, protocol.md §C2.1, version 6; this file also the addresses found since, §N3.2, §N5):
    a restarted peer must reach the others, and they still send to our old address.

    The file is rewritten during a game (a seat found at a new address, §N3.2), so it is
    replaced atomically: written whole to ``<path>.tmp`` (mode 0600), synced, then renamed over
    ``path``. A crash or an error while writing leaves the previous file as it was: truncating
    it in place could lose the chain secret, and with it our seat. Raises ``OSError``."""
    data = json.dumps({"version": 1, "chain_secret": chain_secret.hex(), "seat": seat,
                       "endpoints": [[str(h), int(p)] for h, p in endpoints]}).encode()
    tmp = f"{path}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(tmp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        os.unlink(tmp)
        raise


def read_resume_file(path: Path) -> dict:
    """Read ``<log>.resume`` (see ``write_resume_file``): ``{"chain_secret": bytes, "seat":
    int, "endpoints": [(host, port), ...]}``. Raises ``LocalProtocolError`` if it is missing
    or malformed (the node reports it as ``NodeError("resume")``)."""
    try:
        d = json.loads(Path(path).read_text())
        secret = bytes.fromhex(d["chain_secret"])
        eps = [(str(h), int(p)) for h, p in d["endpoints"]]
        seat = int(d["seat"])
        if len(secret) != 32 or not 0 <= seat < len(eps):
            raise ValueError("bad secret or seat")
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise LocalProtocolError(f"cannot read {path}: {e}") from None
    return {"chain_secret": secret, "seat": seat, "endpoints": eps}


def find_resumable(log_dir: str | os.PathLike[str], identity: Identity, game_id: bytes | None = None) -> Path | None:
    """The game log in ``log_dir`` that we can rejoin: ``game-<gid16>-seat<k>.log`` with its
    ``.resume`` file (removed when a game ends), whose signed setup seats ``identity``, of
    ``game_id`` if given. The most recently written one if several; None if there is none."""
    found = list_resumable(log_dir, identity, game_id)
    return found[0][0] if found else None


def list_resumable(log_dir: str | os.PathLike[str], identity: Identity,
                   game_id: bytes | None = None) -> list[tuple[Path, Any]]:
    """Every game of ``log_dir`` we can rejoin (see ``find_resumable``) as ``[(log path, signed
    Setup)]``, the most recently written first (``lanopoli play`` lists them as "your game")."""
    d = Path(log_dir)
    if not d.is_dir():
        return []
    prefix = "game-" + (game_id.hex()[:16] if game_id is not None else "")
    found = []
    for res in d.glob(f"{prefix}*.log{RESUME_SUFFIX}"):
        log = res.with_name(res.name[: -len(RESUME_SUFFIX)])
        if not log.is_file():
            continue
        first = next(iter(LogReader(log)), None)
        if first is None or first.kind != KIND_HEADER:
            continue
        try:
            setup = parse_header(first.payload)[0]
        except BadLog:
            continue
        if game_id is not None and setup.game_id != game_id:
            continue
        if any(pl.public_key == identity.public_key for pl in setup.players):
            found.append((log.stat().st_mtime, str(log), log, setup))
    return [(f[2], f[3]) for f in sorted(found, key=lambda f: f[:2], reverse=True)]
