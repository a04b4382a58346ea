"""The files a running peer keeps for one game, and their I/O (protocol.md §C6, §C8.9, §C10, §N5).

A seat's game log ``<dir>/game-<game id, 16 hex>-seat<N>.log`` has side files named after it:

* ``<log>.own`` — our own signed step messages (``gamelog.OwnLog``), re-sent byte for byte
  after a restart;
* ``<log>.resume`` — our hash-chain secret and every seat's endpoint (mode 0600,
  ``resume.write_resume_file``), rewritten when a seat is found elsewhere (§N3.2), removed at
  the end of the game;
* ``<log>.reseat`` — the chain secret of our request to play our seat again (mode 0600,
  ``reseat.secret_for``, §C8.9), removed at the end of the game.

``GameFiles`` names them, creates them when the game starts, replays them when the node
restarts or must cut its log back (``resume.resume_session``) and removes what has no use once
the game is over. ``write_evidence`` writes a session's dump after a detected fault. The node
(p2p/node.py) decides when; this module does the file I/O. Errors are raised as they come
(``OSError``; ``LocalProtocolError`` for a missing or malformed ``.resume`` file): the node turns
them into its ``NodeError``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import LocalProtocolError
from .gamelog import LogWriter, OwnLog
from .identity import Identity
from .reseat import SECRET_SUFFIX, read_secret_file, secret_for
from .resume import OWN_SUFFIX, RESUME_SUFFIX, read_resume_file, resume_session, write_resume_file

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam p2p sees; the caller passes the engine)
    from engine.api import Engine


class GameFiles:
    """The game log at ``log_path`` (a ``Path``) and its side files (see the module docstring)."""

    def __init__(self, log_path: Path) -> None:
        self.log_path = log_path
        self.resume_path = Path(str(log_path) + RESUME_SUFFIX)
        self.own_path = str(log_path) + OWN_SUFFIX
        self.secret_path = str(log_path) + SECRET_SUFFIX

    @classmethod
    def new_game(cls, log_dir: str | os.PathLike[str], game_id: bytes, seat: int) -> "GameFiles":
        """The files of a game starting now in ``log_dir`` (created if missing; raises
        ``OSError``): ``game-<first 16 hex digits of game_id>-seat<seat>.log``."""
        d = Path(log_dir)
        d.mkdir(parents=True, exist_ok=True)
        return cls(d / f"game-{game_id.hex()[:16]}-seat{seat}.log")

    def create(self, header: bytes, chain_secret: bytes, seat: int, endpoints: list) -> LogWriter:
        """Start the log with its ``header`` record (``Lobby.log_header``) and write the
        ``.resume`` file (``chain_secret``: 32 bytes; ``endpoints``: ``[(host, port)]`` in seat
        order). Returns the log's writer. Raises ``OSError`` (e.g. a finished game's log is
        already there)."""
        log = LogWriter(self.log_path, header)
        write_resume_file(self.resume_path, chain_secret, seat, endpoints)
        return log

    def own_log(self) -> OwnLog:
        """The own-message log (``<log>.own``), opened for appending."""
        return OwnLog(self.own_path)

    def read_resume(self) -> dict:
        """The ``.resume`` file (``resume.read_resume_file``). Raises ``LocalProtocolError``."""
        return read_resume_file(self.resume_path)

    def remember_endpoints(self, seat: int, endpoints: list) -> None:
        """Rewrite the ``.resume`` file with ``endpoints`` (a seat found at a new address, §N3.2).
        Nothing happens if it cannot be read or written: the game is over (file removed) or the
        disk failed, and the next restart looks for the seats again."""
        try:
            info = read_resume_file(self.resume_path)
            write_resume_file(self.resume_path, info["chain_secret"], seat, endpoints)
        except (LocalProtocolError, OSError):
            pass

    def reseat_secret(self) -> bytes | None:
        """The secret of our last request to play our seat again, for a log replay (§C8.9),
        or None."""
        kept = read_secret_file(self.secret_path)
        return None if kept is None else kept[0]

    def reseat_secret_for(self, dropped_at: int) -> bytes:
        """The secret to ask for our seat back after the drop at step ``dropped_at``
        (``reseat.secret_for``: the kept one for that drop, else a fresh one written first)."""
        return secret_for(self.secret_path, dropped_at)

    def replay(self, identity: Identity, chain_secret: bytes, engine: Engine, now: float,
               truncate_at: int | None = None) -> tuple[Any, Any]:
        """``resume.resume_session`` on this log with its own-message log and re-seat secret:
        ``(LockstepSession, ResumeReport)``; ``truncate_at``: cut the log back to that step
        first (our state forked there, §C8.3). Raises ``LocalProtocolError`` or ``OSError``."""
        return resume_session(self.log_path, identity, chain_secret, engine, own_log_path=self.own_path, now=now,
                              truncate_at=truncate_at, reseat_secret=self.reseat_secret())

    def finished(self) -> None:
        """The game is over: nothing is left to resume, and the chain secrets have no use left
        (``.resume`` and ``.reseat`` removed; the log and ``.own`` stay)."""
        self.resume_path.unlink(missing_ok=True)
        Path(self.secret_path).unlink(missing_ok=True)


def write_evidence(log_dir: str | os.PathLike[str], seat: int, dump: dict) -> Path:
    """Write a session's ``dump()`` after a detected fault as ``<log_dir>/evidence-seat<seat>.json``
    (indented JSON) and return its path. Raises ``OSError``."""
    path = Path(log_dir) / f"evidence-seat{seat}.json"
    path.write_text(json.dumps(dump, indent=1))
    return path
