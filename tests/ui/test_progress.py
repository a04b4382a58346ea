"""ui/progress.py: the child-process progress lines (protocol.md part L) as JSON lines."""

from __future__ import annotations

import io
import json

from ui.progress import progress_printer


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
