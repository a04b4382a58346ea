"""``lanopoli join --code ADDRESS:PORT/CODE``: a headless joiner goes to the host's address
(protocol.md §N3.1) instead of picking a game by id on mDNS; ``lanopoli demo`` joins its
peers this way (ui/demo.py; two demos with the same seed: tests/e2e/test_demo_same_seed.py).
"""

from __future__ import annotations

import pytest

from p2p.join_code import join_code, join_code_tag
from ui import peer
from ui.cli import EXIT_USAGE
from ui.i18n import set_language

from test_cli import run  # main(argv) -> (exit code, stdout, stderr)

GID = bytes(range(16))
KEY = bytes(range(32, 64))


@pytest.fixture
def captured_config(monkeypatch):
    """The PeerConfig ``join`` hands to the node (no socket, no browsing); Italian unless
    ``--lang en`` (no locale from the environment)."""
    import p2p.node

    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)

    seen = []

    async def fake_run_peer(cfg):
        seen.append(cfg)
        raise p2p.node.NodeError("lobby", "stop here")

    def no_browsing(*_a, **_k):
        raise AssertionError("a joiner by code never browses")

    monkeypatch.setattr(p2p.node, "run_peer", fake_run_peer)
    monkeypatch.setattr(peer, "find_games", no_browsing)
    yield seen
    set_language("en")


def test_a_short_code_gives_the_hosts_address_and_tag(capsys, captured_config, tmp_path):
    code = join_code("127.0.0.1", 40211, GID, KEY)
    run(capsys, "--lang", "en", "join", "--bind", "127.0.0.1", "--code", code, "--seed", "s",
        "--log-dir", str(tmp_path))
    [cfg] = captured_config
    assert cfg.host_addr == ("127.0.0.1", 40211)
    assert cfg.host_code == join_code_tag(GID, KEY) and cfg.game_id is None


def test_the_long_form_gives_the_game_id(capsys, captured_config, tmp_path):
    run(capsys, "--lang", "en", "join", "--bind", "127.0.0.1", "--code", f"127.0.0.1:40211/{GID.hex()}",
        "--seed", "s", "--log-dir", str(tmp_path))
    [cfg] = captured_config
    assert (cfg.host_addr, cfg.game_id, cfg.host_code) == (("127.0.0.1", 40211), GID, None)


def test_a_malformed_code_is_one_translated_line(capsys, captured_config, tmp_path):
    code, out, err = run(capsys, "join", "--bind", "127.0.0.1", "--code", "nowhere", "--seed", "s",
                         "--log-dir", str(tmp_path))
    assert code == EXIT_USAGE and out == "" and captured_config == []
    assert err.strip().splitlines() == [
        "lanopoli: errore: --code vuole il codice che mostra chi ha creato la partita, "
        "per esempio 192.168.1.20:40000/7KQ2M-XH3PA, non nowhere"]


def test_code_and_game_exclude_each_other(capsys, captured_config):
    code, _out, _err = run(capsys, "--lang", "en", "join", "--bind", "127.0.0.1", "--game", GID.hex(),
                           "--code", join_code("127.0.0.1", 1, GID, KEY))
    assert code == EXIT_USAGE and captured_config == []
