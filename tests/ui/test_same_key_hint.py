"""One laptop, host and joiner with one key directory (H96): the joiner stops with
``p2p.admission.SAME_KEY`` (tests/p2p/test_same_key_join.py) and the command line says what to
do, naming ``--config-dir``: in Italian by default, in English with ``--lang en``; any other
fault gets no such hint."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from p2p.admission import SAME_KEY
from p2p.join_code import join_code
from ui import peer
from pilot_support import sync
from ui.display import fault_hint
from ui.driver import Fault
from ui.i18n import set_language

from test_cli import run  # main(argv) -> (exit code, stdout, stderr)


def join_by_code(capsys, tmp_path, lang: str | None = None) -> tuple[int, str]:
    """``lanopoli [--lang LANG] join --code ...`` at a made-up host (the node is the ``stops_with``
    stand-in): (exit code, stderr)."""
    code = join_code("127.0.0.1", 40211, bytes(16), bytes(range(32)))
    argv = (["--lang", lang] if lang else []) + ["join", "--bind", "127.0.0.1", "--code", code, "--seed", "s",
                                                 "--log-dir", str(tmp_path)]
    status, _, err = run(capsys, *argv)
    return status, err


@pytest.fixture
def stops_with(monkeypatch):
    """Make the node stop at once with NodeError("lobby", <message>) (no socket, no browsing)."""
    import p2p.node

    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    message = []

    async def fake_run_peer(cfg):
        raise p2p.node.NodeError("lobby", message[0])

    monkeypatch.setattr(p2p.node, "run_peer", fake_run_peer)
    monkeypatch.setattr(peer, "find_games", lambda *_a, **_k: pytest.fail("a joiner by code never browses"))
    yield message
    set_language("en")


@pytest.mark.parametrize("lang, words", [(None, "usa la tua stessa chiave"), ("en", "uses your own player key")])
def test_a_joiner_sharing_the_hosts_key_is_told_to_use_config_dir(capsys, stops_with, tmp_path, lang, words):
    stops_with.append(SAME_KEY)
    status, err = join_by_code(capsys, tmp_path, lang)
    assert status == 1
    hint = next(line for line in err.splitlines() if "--config-dir" in line)
    assert words in hint and "--config-dir ./" in hint


def test_other_lobby_faults_get_no_hint(capsys, stops_with, tmp_path):
    stops_with.append("rejected by the host: the lobby is full")
    status, err = join_by_code(capsys, tmp_path, "en")
    assert status == 1 and "--config-dir" not in err
    assert fault_hint("desync", SAME_KEY) is None and fault_hint("lobby", SAME_KEY) is not None


@pytest.mark.parametrize("lang, words", [("it", "usa la tua stessa chiave"), ("en", "uses your own player key")])
@sync
async def test_the_end_screen_shows_the_hint_too(lang, words):
    """``lanopoli play`` (Textual): the end screen of that fault shows the same hint."""
    from test_end_abandoned import end_text

    d = SimpleNamespace(fault=Fault("lobby", SAME_KEY), state=None, names=(), abandoned=None, spectator=False,
                        log_path=None)
    set_language(lang)
    try:
        text = await end_text(d)
    finally:
        set_language("en")
    assert words in text and "--config-dir" in text
