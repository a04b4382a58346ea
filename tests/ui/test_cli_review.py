"""Review findings on the command line: a re-run demo, a --bind address of another machine,
the demo's progress without a terminal, Italian everywhere by default, the README's example.

protocol.md part L: exit 2 = "the request cannot be carried out ... One line on stderr, never a
traceback"; the messages are Italian by default (README "Messages are in Italian").
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from ui import demo, display, netif, verify_text
from ui.cli import EXIT_USAGE
from ui.i18n import set_language

from test_cli import run  # main(argv) -> (exit code, stdout, stderr)

ROOT = Path(__file__).resolve().parents[2]
#: Not an address of this machine (a private address no interface here has); the check
#: must refuse it before any socket or zeroconf sees it, so no packet ever goes there.
FOREIGN = "10.9.9.9"


@pytest.fixture(autouse=True)
def _italian_by_default(monkeypatch):
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    yield
    set_language("en")


# --- 1. a demo re-run into the same directory --------------------------------------------


def test_demo_twice_into_the_same_directory_is_refused_with_a_message(tmp_path):
    """A real 2-peer demo, then the same command again: the second exits 2 at once, in Italian,
    naming the directory, instead of every peer hanging on its existing log."""
    log_dir = tmp_path / "game"
    cmd = [sys.executable, "-m", "ui.cli", "demo", "--peers", "2", "--seed", f"review-{tmp_path.name}",
           "--log-dir", str(log_dir), "--timeout", "120"]
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    first = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=150, env=env)
    assert first.returncode == 0, first.stdout + first.stderr
    again = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60, env=env)
    assert again.returncode == EXIT_USAGE
    assert again.stdout == ""
    assert again.stderr.strip().splitlines() == [
        f"lanopoli: errore: {log_dir} contiene già i log di una demo precedente; "
        "scegli un'altra --log-dir o cancella quella cartella"]


def test_earlier_game_logs_are_the_peer_logs_only(tmp_path):
    assert demo.earlier_game_logs(tmp_path / "missing") == []
    (tmp_path / "peer-0").mkdir()
    (tmp_path / "peer-0" / "stderr.log").write_text("")
    assert demo.earlier_game_logs(tmp_path) == []  # a crashed start leaves no game log: reusable
    log = tmp_path / "peer-0" / "game-0011223344556677-seat1.log"
    log.write_bytes(b"x")
    assert demo.earlier_game_logs(tmp_path) == [log]


# --- 2. --bind an address of another machine ---------------------------------------------


@pytest.fixture
def no_network(monkeypatch):
    """Fail the test if the CLI gets as far as browsing or starting a peer."""
    import p2p.node
    from ui import peer

    def forbidden(*_a, **_k):
        raise AssertionError("the address check must fail before any socket is used")

    monkeypatch.setattr(peer, "find_games", forbidden)
    monkeypatch.setattr(p2p.node, "run_peer", forbidden)


@pytest.mark.parametrize("argv", [
    ["join", "--bind", FOREIGN, "--list"],
    ["join", "--bind", FOREIGN, "--game", "3f2a"],
    ["host", "--seats", "2", "--bind", FOREIGN],
])
def test_bind_to_an_address_of_another_machine_is_one_translated_line(capsys, no_network, argv):
    code, out, err = run(capsys, *argv)
    assert code == EXIT_USAGE and out == ""
    assert err.strip().splitlines() == [
        f"lanopoli: errore: {FOREIGN} non è un indirizzo IPv4 utilizzabile da questo computer (per esempio 192.168.1.20)"]


def test_check_address_wants_one_of_our_addresses():
    ours = frozenset({"192.0.2.2", "127.0.0.1"})
    assert netif.check_address("192.0.2.2", ours) == "192.0.2.2"
    assert netif.check_address("127.0.0.5", ours) == "127.0.0.5"  # all of 127/8 is local
    with pytest.raises(netif.InterfaceError) as info:
        netif.check_address(FOREIGN, ours)
    assert info.value.kind == "bad_address" and info.value.subject == FOREIGN
    assert "127.0.0.1" in netif.local_ipv4_addresses()


@pytest.mark.parametrize("argv", [["join", "--bind", "127.0.0.1", "--list"],
                                  ["join", "--bind", "127.0.0.1", "--game", "3f2a"]])
def test_a_socket_refusing_the_address_while_browsing_is_one_line(capsys, monkeypatch, argv):
    from ui import peer

    async def refuse(*_a, **_k):
        raise OSError(19, "No such device")

    monkeypatch.setattr(peer, "find_games", refuse)
    code, out, err = run(capsys, *argv)
    assert code == EXIT_USAGE and out == ""
    assert err.strip().splitlines() == ["lanopoli: errore: impossibile usare l'indirizzo di rete 127.0.0.1: No such device"]


def test_a_socket_refusing_the_address_at_bind_is_one_line(capsys, monkeypatch, tmp_path):
    import p2p.node

    async def refuse(_cfg):
        raise OSError(99, "Cannot assign requested address")

    monkeypatch.setattr(p2p.node, "run_peer", refuse)
    code, out, err = run(capsys, "host", "--seats", "2", "--bind", "127.0.0.1", "--seed", "x",
                         "--log-dir", str(tmp_path))
    assert code == EXIT_USAGE and out == ""
    assert err.strip().splitlines() == [
        "lanopoli: errore: impossibile usare l'indirizzo di rete 127.0.0.1: Cannot assign requested address"]


# --- 3. the README's verify example --------------------------------------------------------


def test_readme_verify_example_matches_the_real_log_names(tmp_path):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    example = re.search(r"lanopoli verify (/tmp/game/\S+)", text)
    assert example, "README must show how to verify a demo log"
    pattern = example.group(1).replace("/tmp/game/", "")
    # The name the node writes (p2p/node.py): peer-<i>/game-<gid16>-seat<k>.log, plus side files.
    for name in ("game-7d0951b4f2cda06d-seat1.log", "game-7d0951b4f2cda06d-seat1.log.own", "stderr.log"):
        (tmp_path / "peer-0").mkdir(exist_ok=True)
        (tmp_path / "peer-0" / name).write_text("")
    assert [p.name for p in tmp_path.glob(pattern)] == ["game-7d0951b4f2cda06d-seat1.log"]


# --- 4. progress when stderr is not a terminal -------------------------------------------


def _peers(step: int) -> list[demo.PeerStatus]:
    p = demo.PeerStatus(index=0)
    p.progress = {"type": "progress", "step": step, "turn": step // 10, "current": 1, "leader": 0, "cash": [1500, 900]}
    return [p, demo.PeerStatus(index=1)]


def test_demo_prints_plain_progress_lines_without_a_terminal():
    set_language("en")
    buf = io.StringIO()
    now = [0.0]
    live = display.DemoDisplay(2, Console(file=buf), interval=5.0, clock=lambda: now[0])
    assert live.plain
    with live:
        live.update(_peers(10))   # first report: printed
        now[0] = 1.0
        live.update(_peers(20))   # within the interval: not printed
        now[0] = 6.0
        live.update(_peers(30))   # interval passed: printed
    lines = buf.getvalue().splitlines()
    # Seats as people count them, from 1 (the JSON lines count from 0).
    assert lines == ["step 10 · turn 1 · to move: seat 2 · leader: seat 1 (cash €1.500)",
                     "step 30 · turn 3 · to move: seat 2 · leader: seat 1 (cash €1.500)"]


# --- 5. Italian by default -----------------------------------------------------------------


def test_unknown_edition_is_translated_and_lists_the_editions(capsys):
    code, out, err = run(capsys, "demo", "--edition", "nope")
    assert code == EXIT_USAGE and out == ""
    assert err.strip() == ("lanopoli: errore: edizione sconosciuta nope; le edizioni sono: "
                           "classico, editrice-giochi, fabrianopoli, niente-e-come-sembra")


@pytest.mark.parametrize(("argv", "italian"), [
    (["demo", "--peers", "9"], "argomento --peers: deve essere tra 2 e 8"),
    (["fly"], "argomento COMMAND: scelta non valida: 'fly'"),
    ([], "questi argomenti sono obbligatori: COMMAND"),
    (["verify"], "questi argomenti sono obbligatori: log"),
    (["demo", "--bogus"], "argomenti non riconosciuti: --bogus"),
    (["join", "--fault-seed", "x"], "argomento --fault-seed: valore int non valido: 'x'"),
    (["demo", "--on-drop", "never"], "argomento --on-drop: scelta non valida: 'never'"),
    (["demo", "--seed"], "argomento --seed: richiede un valore"),
])
def test_argparse_messages_are_italian_by_default(capsys, argv, italian):
    code, _out, err = run(capsys, *argv)
    assert code == EXIT_USAGE
    assert italian in err.splitlines()[0], err
    for english in ("argument", "invalid choice", "the following", "unrecognized", "expected", "invalid int"):
        assert english not in err


def test_argparse_messages_stay_english_with_lang_en(capsys):
    _code, _out, err = run(capsys, "--lang", "en", "fly")
    assert "argument COMMAND: invalid choice: 'fly'" in err


def test_help_headings_are_italian(capsys):
    code, out, _err = run(capsys, "demo", "--help")
    assert code == 0 and out.startswith("uso: ") and "\nopzioni:\n" in out


@pytest.mark.parametrize(("english", "italian"), [
    ("seat 1: bad signature", "posto 2: firma non valida"),
    ("seat 2: prev state hash differs from the replayed state",
     "posto 3: l'hash dello stato precedente non corrisponde allo stato ricalcolato"),
    ("truncated record at byte 301822", "record troncato al byte 301822"),
    ("bad setup signature of seat 0", "firma del setup non valida del posto 1"),
    ("malformed header: not a list", "intestazione malformata: not a list"),
    ("the log is of protocol version 5; this program checks version 6",  # p2p/log_checks, version 6
     "il log è del protocollo versione 5; questo programma controlla la versione 6"),
    ("something new", "something new"),  # unknown reasons pass through unchanged
])
def test_verify_reasons_are_translated(english, italian):
    set_language("it")
    assert verify_text.verify_reason(english) == italian


def test_verify_summary_in_italian_but_json_untranslated(capsys):
    set_language("it")
    summary = {"ok": False, "log": "x.log", "first_bad_step": 299, "error": "seat 1: bad signature"}
    verify_text.print_verify_summary(summary)
    assert "Il log NON è valido al passo 299: posto 2: firma non valida" in capsys.readouterr().out
    assert summary["error"] == "seat 1: bad signature"  # what --json prints


def test_all_peers_line_has_correct_italian_grammar():
    set_language("it")
    outcome = demo.DemoOutcome(peers=[], agreed_hash="ab")
    for n in range(2, 9):
        outcome.peers = [demo.PeerStatus(index=i, done={"seat": i, "log": f"l{i}", "winner": 0}, returncode=0)
                         for i in range(n)]
        out = io.StringIO()
        display.print_demo_outcome(outcome, demo.DemoOptions(n, None, "classico", Path("."), 1.0), out=out)
        text = out.getvalue()
        assert f"Tutti i peer ({n}) hanno finito con lo stesso stato finale." in text
        assert "Tutti i 8" not in text


def test_verify_summary_speaks_one_language(capsys):
    """Issue 11, defect 10: event names in Italian, seats from 1; the hash line stays the
    machine-readable English one when stdout is not a terminal (scripts parse it)."""
    set_language("it")
    summary = {"ok": True, "complete": True, "log": "x.log", "edition": "classico", "seats": 2, "steps": 9,
               "messages": 20, "winner": 0, "winner_name": "Anna", "final_state_hash": "ab" * 32,
               "events": {"AuctionEnded": 2, "DiceRolled": 7}}
    verify_text.print_verify_summary(summary)
    out = capsys.readouterr().out
    assert "Eventi: aste chiuse 2, lanci di dadi 7" in out and "Anna (posto 1)" in out
    assert "AuctionEnded" not in out
    assert f"final state hash: {'ab' * 32}" in out.splitlines()


def test_final_hash_line_is_translated_for_a_person_only():
    class Tty(io.StringIO):
        def isatty(self):
            return True
    set_language("it")
    assert display.final_hash_line("ab", Tty()) == "hash dello stato finale: ab"
    assert display.final_hash_line("ab", io.StringIO()) == "final state hash: ab"


def test_a_stopped_game_is_told_in_italian():
    set_language("it")
    assert display.fault_sentence("timeout") == "La partita è durata troppo."
