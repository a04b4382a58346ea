"""ui/progress.py: the child-process progress lines (protocol.md part L): the format of every
node report (moved from p2p/node.py, same bytes as before) and the JSON-lines writers."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from p2p.node_config import NodeError, PeerResult
from p2p.node_reports import (Found, Hosting, Progress, RendezvousFailed, ReseatAsked, Resumed,
                              SeatAdvertIgnored, SeatFound, Waiting, WatchAdFailed)
from p2p.resume import LogDamage
from p2p.session_events import (CaughtUp, CheaterProven, SeatDropped, SeatDropVoted, SeatLost,
                                SeatReturned, StepOverturned, TurnSkipped)
from ui.progress import progress_json, progress_printer, report_printer


def test_progress_printer_writes_json_lines(capsys):
    """Part L: one compact JSON object per line on stdout by default."""
    emit = progress_printer()
    emit({"type": "found", "peers": 3, "elapsed_s": 0.2})
    emit({"type": "progress", "step": 5, "turn": 1, "current": 0, "leader": 0})
    out = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["type"] for line in out] == ["found", "progress"]
    assert out[0] == '{"type":"found","peers":3,"elapsed_s":0.2}'


def test_progress_printer_writes_to_the_stream_it_is_given():
    buf = io.StringIO()
    progress_printer(buf)({"type": "done", "steps": 7})
    assert json.loads(buf.getvalue()) == {"type": "done", "steps": 7}


#: Report -> its line, byte for byte (protocol.md part L, key order as written there).
LINES = [
    (Hosting(bytes(range(16)), "127.0.0.1", 40211),
     '{"type":"hosting","game_id":"000102030405060708090a0b0c0d0e0f","address":"127.0.0.1","port":40211}'),
    (Found(4, 0.41234, "M4GR-G87H"), '{"type":"found","peers":4,"elapsed_s":0.412,"table_code":"M4GR-G87H"}'),
    (Progress(1520, 143, 2, 0, (1200, 340, 2210, 0), (3,)),
     '{"type":"progress","step":1520,"turn":143,"current":2,"leader":0,"cash":[1200,340,2210,0],"waiting_for":[3]}'),
    (Progress(7, None, None, None, None, ()),  # an engine without standings or cash: no keys
     '{"type":"progress","step":7,"turn":null,"current":null,"waiting_for":[]}'),
    (Waiting(418, (2,), ("bot-2",), 3.5, 26.54, False, None),
     '{"type":"waiting","step":418,"seats":[2],"names":["bot-2"],"waited_s":3.5,"deadline_s":26.5,'
     '"paused":false,"abandon_s":null}'),
    (Waiting(185, (1,), ("bot-1",), 4.4, -0.3, True, 55.6),  # past the deadline: 0.0, never negative
     '{"type":"waiting","step":185,"seats":[1],"names":["bot-1"],"waited_s":4.4,"deadline_s":0.0,'
     '"paused":true,"abandon_s":55.6}'),
    (Resumed("/tmp/g.log", 407, True, LogDamage(407, 301822, "truncated record"), "M4GR-G87H"),
     '{"type":"resumed","log":"/tmp/g.log","step":407,"own_resent":true,'
     '"damage":{"step":407,"offset":301822,"reason":"truncated record"},"table_code":"M4GR-G87H"}'),
    (Resumed("/tmp/g.log", 3, False, None), '{"type":"resumed","log":"/tmp/g.log","step":3,"own_resent":false,'
     '"damage":null,"table_code":""}'),
    (RendezvousFailed("no multicast"), '{"type":"rendezvous_failed","reason":"no multicast"}'),
    (SeatAdvertIgnored(2, "10.0.0.9", 4000), '{"type":"seat_advert_ignored","seat":2,"address":"10.0.0.9","port":4000}'),
    (SeatFound(2, "10.0.0.9", 4000), '{"type":"seat_found","seat":2,"address":"10.0.0.9","port":4000}'),
    (ReseatAsked(90, 80), '{"type":"reseat_asked","step":90,"dropped_at":80}'),
    (SeatLost(12), '{"type":"seat_lost","step":12}'),
    (StepOverturned(12, 3), '{"type":"step_overturned","step":12,"seat":3}'),
    (CheaterProven(5, 1, "bad reveal", b""), '{"type":"cheater","step":5,"seat":1,"reason":"bad reveal"}'),
    (SeatDropVoted(5, 1), '{"type":"drop_vote","step":5,"seat":1}'),
    (SeatDropped(5, 1, "bot", True), '{"type":"seat_dropped","step":5,"seat":1,"rule":"bot","reconstructed":true}'),
    (SeatReturned(9, 1), '{"type":"seat_returned","step":9,"seat":1}'),
    (TurnSkipped(5, 2, 3, 3), '{"type":"turn_skipped","step":5,"seat":2,"votes":3,"quorum":3}'),
    (CaughtUp(1, 10, 20), '{"type":"caught_up","source":1,"from_step":10,"to_step":20}'),
    (WatchAdFailed("no multicast"), '{"type":"watch_ad_failed","reason":"no multicast"}'),  # WatchService's
]


@pytest.mark.parametrize("report,line", LINES, ids=[type(r).__name__ for r, _ in LINES])
def test_every_report_has_its_part_l_line(report, line):
    """Part L "Child progress lines": the node's typed report becomes exactly this line."""
    buf = io.StringIO()
    progress_printer(buf)(report)
    assert buf.getvalue() == line + "\n"


def test_done_and_error_lines():
    """Part L: ``done`` (with this process's ``maxrss_kb``) from the PeerResult, ``error`` from NodeError."""
    res = PeerResult(b"\x01" * 32, 1, 2210, Path("/tmp/g/game.log"), 0, {}, names=("a", "b"),
                     session_stats={"accepted": 3}, abandoned={"seat": 1, "step": 5})
    done = progress_json(res)
    assert list(done) == ["type", "final_state_hash", "winner", "winner_name", "steps", "log", "seat",
                          "maxrss_kb", "session_stats", "abandoned"]
    assert done["final_state_hash"] == "01" * 32 and done["winner_name"] == "b" and done["log"] == "/tmp/g/game.log"
    assert done["maxrss_kb"] > 0 and done["session_stats"] == {"accepted": 3}
    assert progress_json(NodeError("stalled", "no message", 4)) == {"type": "error", "code": "stalled",
                                                                    "message": "no message", "step": 4}


def test_dicts_pass_through_and_other_objects_are_refused():
    """A line a caller wrote itself (hostile_peer's ``attack``) is written as is."""
    line = {"type": "attack", "kind": "x"}
    assert progress_json(line) is line
    with pytest.raises(TypeError):
        progress_json(object())


def test_report_printer_hands_dicts_to_the_printer(monkeypatch):
    """``report_printer`` formats first: a wrapper of ``progress_printer`` (bench/_net_child.py)
    sees the dicts of part L, never report objects."""
    seen = []
    monkeypatch.setattr("ui.progress.progress_printer", lambda stream=None: seen.append)
    report_printer()(SeatDropVoted(5, 1))
    assert seen == [{"type": "drop_vote", "step": 5, "seat": 1}]
