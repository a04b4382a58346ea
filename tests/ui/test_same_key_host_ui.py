"""The host's side of one key directory for two players (H104): when a player joins with the
host's own key (p2p ``SameKeyJoined``, protocol.md part L ``same_key``), ``lanopoli host`` says so
once, naming ``--config-dir`` (Italian by default, English with ``--lang en``); with
``--progress-json`` it is the ``same_key`` line. Before, the host printed nothing (H101)."""

from __future__ import annotations

import json

import pytest

from p2p.node_reports import SameKeyJoined
from ui.display import fault_hint
from ui.i18n import set_language
from ui.progress import progress_json

from test_cli import run  # main(argv) -> (exit code, stdout, stderr)


@pytest.fixture
def host_sees_same_key(monkeypatch):
    """The node reports SameKeyJoined from 127.0.0.1:40001, then stops (no socket, no zeroconf)."""
    import p2p.node

    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)

    async def fake_run_peer(cfg):
        cfg.progress(SameKeyJoined("127.0.0.1", 40001))
        raise p2p.node.NodeError("timeout", "stopped by the test")

    monkeypatch.setattr(p2p.node, "run_peer", fake_run_peer)
    yield
    set_language("en")


@pytest.mark.parametrize("lang, words", [(None, "ha provato a entrare con la tua stessa chiave"),
                                         ("en", "tried to join with your own player key")])
def test_the_host_tells_whoever_runs_it_to_use_config_dir(capsys, host_sees_same_key, tmp_path, lang, words):
    argv = (["--lang", lang] if lang else []) + ["host", "--bind", "127.0.0.1", "--seats", "3", "--seed", "s",
                                                 "--log-dir", str(tmp_path)]
    _, _, err = run(capsys, *argv)
    hints = [line for line in err.splitlines() if "--config-dir" in line]
    assert len(hints) == 1 and words in hints[0] and "127.0.0.1:40001" in hints[0]


def test_the_progress_json_line(capsys, host_sees_same_key, tmp_path):
    _, out, _ = run(capsys, "host", "--bind", "127.0.0.1", "--seats", "3", "--seed", "s", "--log-dir",
                    str(tmp_path), "--progress-json")
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert {"type": "same_key", "address": "127.0.0.1", "port": 40001} in lines
    assert progress_json(SameKeyJoined("10.0.0.2", 5000)) == {"type": "same_key", "address": "10.0.0.2",
                                                             "port": 5000}


def test_the_hint_is_only_for_same_key():
    assert fault_hint("same_key", "127.0.0.1:40001") is not None
    assert fault_hint("lobby", "127.0.0.1:40001") is None
