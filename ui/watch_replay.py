"""A spectator's copy of the game log, written and checked (protocol.md §N10 "The spectator").

``record_appenders``: which ``LogWriter`` method writes each record kind of the copy other than
STEP; ``verify_records``: ``p2p.verify.verify_log`` of the copy with a ``RecordingEngine``,
which keeps the state after the last verified step and the events of every step applied, so
that ``ui.watch.WatchDriver`` shows only what verified. Split out of ``ui/watch.py`` (H176).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam ui sees)
    from engine.api import Engine


def record_appenders(writer: Any) -> dict[int, Callable[[bytes], None]]:
    """The ``LogWriter`` method that writes each record kind of a spectator's copy other than
    STEP (written with its step number): DROP, SKIP, ABANDON, COMPLAINT (protocol.md §C6, §N10).
    With ``KIND_STEP`` these are exactly ``p2p.spectate.LOG_KINDS``, the kinds a seat may serve;
    any other is the serving seat's lie (``WatchDriver._write_new``)."""
    from p2p.gamelog import KIND_ABANDON, KIND_COMPLAINT, KIND_DROP, KIND_SKIP

    return {KIND_DROP: writer.append_drop, KIND_SKIP: writer.append_skip, KIND_ABANDON: writer.append_abandon,
            KIND_COMPLAINT: writer.append_complaint}


class RecordingEngine:
    """The engine module as ``verify_log`` sees it, keeping what the replay produced: the
    state of the last ``state_hash`` call (after the last verified step) and the events of
    every step applied, in order. Everything else is the real engine's."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self.state: Any = None
        self.events: list = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    def apply_step(self, state: Any, inputs: Any) -> Any:
        out = self._engine.apply_step(state, inputs)
        self.events.extend(out[1])
        return out

    def apply_chance(self, state: Any, beacon: Any) -> Any:
        out = self._engine.apply_chance(state, beacon)
        self.events.extend(out[1])
        return out

    def state_hash(self, state: Any) -> bytes:
        self.state = state
        return self._engine.state_hash(state)


def verify_records(path: Path, engine: Engine) -> tuple[Any, RecordingEngine]:
    """``verify_log(path)`` with a RecordingEngine: (report, recorder)."""
    from p2p.verify import verify_log

    rec = RecordingEngine(engine)
    return verify_log(path, engine=rec), rec


__all__ = ["RecordingEngine", "record_appenders", "verify_records"]
