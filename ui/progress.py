"""The child-process progress lines of protocol.md part L: their format, written as JSON.

A peer (``p2p.node.run_peer``) hands typed reports to the callback ``PeerConfig.progress``
(p2p/node_reports.py: report records, session events, the ``PeerResult``; p2p never imports
ui). This module owns what each becomes on the line: ``progress_json`` builds the dict of
protocol.md part L (key order as written there), and ``progress_printer`` is the writer
``lanopoli host|join --progress-json`` plugs in: one compact JSON object per line, flushed at
once so that a parent process (tests/e2e, bench, the classroom runner) reads each line as it
happens.
"""

from __future__ import annotations

import json
import resource
import sys
from collections.abc import Callable
from typing import Any

from p2p.node_config import NodeError, PeerResult
from p2p.node_reports import (Found, Hosting, Progress, RendezvousFailed, ReseatAsked, Resumed, SameKeyJoined,
                              SeatAdvertIgnored, SeatFound, Waiting, WatchAdFailed)
from p2p.session_events import (CaughtUp, CheaterProven, SeatDropped, SeatDropVoted, SeatLost,
                                SeatReturned, StepOverturned, TurnSkipped)

__all__ = ["progress_json", "progress_printer", "report_printer"]


def _s(seconds: float) -> float:
    """A duration on the line: 0.1 s resolution, never negative."""
    return round(max(0.0, seconds), 1)


def _progress(r: Progress) -> dict:
    msg: dict[str, Any] = {"type": "progress", "step": r.step, "turn": r.turn, "current": r.current}
    if r.leader is not None:  # an engine without standings: no key (part L)
        msg["leader"] = r.leader
    if r.cash is not None:
        msg["cash"] = list(r.cash)
    msg["waiting_for"] = list(r.waiting_for)
    return msg


def _done(r: PeerResult) -> dict:
    return {"type": "done", "final_state_hash": r.final_state_hash.hex(),
            "winner": r.winner, "winner_name": r.winner_name, "steps": r.steps,
            "log": None if r.log_path is None else str(r.log_path), "seat": r.seat,
            "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            "session_stats": dict(r.session_stats), "abandoned": r.abandoned}


def _resumed(r: Resumed) -> dict:
    d = r.damage
    return {"type": "resumed", "log": r.log, "step": r.step, "own_resent": r.own_resent,
            "damage": None if d is None else {"step": d.step, "offset": d.offset, "reason": d.reason},
            "table_code": r.table_code}


#: Report type -> its line (protocol.md part L); ``NodeError`` (a subclass per caller is
#: possible) is matched apart.
_LINES: dict[type, Callable[[Any], dict]] = {
    Hosting: lambda r: {"type": "hosting", "game_id": r.game_id.hex(), "address": r.address, "port": r.port},
    Found: lambda r: {"type": "found", "peers": r.peers, "elapsed_s": round(r.elapsed, 3), "table_code": r.table_code},
    Progress: _progress,
    Waiting: lambda r: {"type": "waiting", "step": r.step, "seats": list(r.seats), "names": list(r.names),
                        "waited_s": round(r.waited, 1),
                        "deadline_s": None if r.deadline is None else _s(r.deadline),
                        "paused": bool(r.paused), "abandon_s": None if r.abandon is None else _s(r.abandon)},
    Resumed: _resumed,
    RendezvousFailed: lambda r: {"type": "rendezvous_failed", "reason": r.reason},
    SeatAdvertIgnored: lambda r: {"type": "seat_advert_ignored", "seat": r.seat, "address": str(r.address),
                                  "port": int(r.port)},
    SeatFound: lambda r: {"type": "seat_found", "seat": r.seat, "address": r.address, "port": r.port},
    ReseatAsked: lambda r: {"type": "reseat_asked", "step": r.step, "dropped_at": r.dropped_at},
    SeatLost: lambda r: {"type": "seat_lost", "step": r.step},
    StepOverturned: lambda r: {"type": "step_overturned", "step": r.step, "seat": r.seat},
    CheaterProven: lambda r: {"type": "cheater", "step": r.step, "seat": r.seat, "reason": r.reason},
    SeatDropVoted: lambda r: {"type": "drop_vote", "step": r.step, "seat": r.seat},
    SeatDropped: lambda r: {"type": "seat_dropped", "step": r.step, "seat": r.seat, "rule": r.rule,
                            "reconstructed": r.reconstructed},
    SeatReturned: lambda r: {"type": "seat_returned", "step": r.step, "seat": r.seat},
    TurnSkipped: lambda r: {"type": "turn_skipped", "step": r.step, "seat": r.seat, "votes": r.votes,
                            "quorum": r.quorum},
    CaughtUp: lambda r: {"type": "caught_up", "source": r.source, "from_step": r.from_step, "to_step": r.to_step},
    WatchAdFailed: lambda r: {"type": "watch_ad_failed", "reason": r.reason},
    SameKeyJoined: lambda r: {"type": "same_key", "address": r.address, "port": r.port},
    PeerResult: _done,
}


def progress_json(report: Any) -> dict:
    """The line of protocol.md part L for one of the node's reports (p2p/node_reports.py); a
    ``NodeError`` gives the ``error`` line, a ``PeerResult`` the ``done`` line (with this
    process's peak resident set, ``maxrss_kb``, read now); a dict (a line a caller wrote
    itself) is returned as is. Raises ``TypeError`` for anything else."""
    if isinstance(report, dict):
        return report
    if isinstance(report, NodeError):
        return {"type": "error", "code": report.code, "message": str(report), "step": report.step}
    line = _LINES.get(type(report))
    if line is None:
        raise TypeError(f"not a progress report: {type(report).__name__}")
    return line(report)


def progress_printer(stream: Any = None) -> Callable[[Any], None]:
    """A progress callback writing each report (or dict) as one JSON line (``progress_json``)
    to ``stream`` (default: the current ``sys.stdout``, looked up at each line), flushed at once
    (protocol.md part L, "Child progress lines")."""

    def emit(msg: Any) -> None:
        out = stream if stream is not None else sys.stdout
        out.write(json.dumps(progress_json(msg), separators=(",", ":")) + "\n")
        out.flush()

    return emit


def report_printer(stream: Any = None) -> Callable[[Any], None]:
    """``progress_printer(stream)`` fed with ``progress_json``'s dicts: the callback
    ``lanopoli host|join --progress-json`` gives the node. A writer that wraps
    ``progress_printer`` (bench/_net_child.py adds ``rss_kb`` to ``progress`` lines) sees the
    dicts of protocol.md part L, never report objects."""
    printer = progress_printer(stream)  # looked up now: a wrapper installed before applies
    return lambda report: printer(progress_json(report))
