"""The command line's argument handling, language choice and money formatting.

Issue text: "Errors: clear one-line message and a non-zero exit, never a traceback for user
errors (bad log path, bad args)"; "Money formatted as "€1.500" (Italian thousands separator)";
"Messages to players in Italian by default, English with --lang en or the LANG locale".
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ui.cli import EXIT_USAGE, main
from ui.i18n import choose_language, format_money, set_language

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _english_after_test():
    # main() switches the process-wide language; leave it as other tests expect it.
    yield
    set_language("en")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["fly"],
        ["demo", "--peers", "9"],
        ["demo", "--peers", "1"],
        ["demo", "--peers", "four"],
        ["demo", "--timeout", "0"],
        ["demo", "--timeout", "soon"],
        ["--lang", "fr", "demo"],
        ["host", "--interface", "lo", "--bind", "127.0.0.1"],
        ["host", "--seats", "12"],
        ["verify"],
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(capsys, argv):
    code, out, err = run(capsys, "--lang", "en", *argv) if "--lang" not in argv else run(capsys, *argv)
    assert code == EXIT_USAGE
    assert out == ""
    lines = err.strip().splitlines()
    assert "error" in lines[0] and len(lines) <= 2, err
    assert "Traceback" not in err


def test_peers_out_of_range_names_the_limits(capsys):
    _code, _out, err = run(capsys, "--lang", "en", "demo", "--peers", "9")
    assert "--peers" in err and "between 2 and 8" in err


def test_errors_are_italian_by_default(capsys, monkeypatch):
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    code, _out, err = run(capsys, "demo", "--peers", "9")
    assert code == EXIT_USAGE
    assert "errore" in err and "tra 2 e 8" in err


def test_missing_log_is_a_usage_error(capsys, tmp_path):
    missing = tmp_path / "nope.log"
    code, out, err = run(capsys, "--lang", "en", "verify", str(missing))
    assert code == EXIT_USAGE and out == ""
    assert err.strip() == f"lanopoli: error: no such file: {missing}"


def test_directory_instead_of_log_is_a_usage_error(capsys, tmp_path):
    code, _out, err = run(capsys, "--lang", "it", "verify", str(tmp_path))
    assert code == EXIT_USAGE
    assert err.strip() == f"lanopoli: errore: non è un file: {tmp_path}"


def test_unknown_interface_is_a_usage_error(capsys):
    code, _out, err = run(capsys, "--lang", "en", "host", "--interface", "nosuch9")
    assert code == EXIT_USAGE
    assert "nosuch9" in err and len(err.strip().splitlines()) == 1


def test_bind_refuses_a_host_name_and_the_wildcard(capsys):
    for bad in ("localhost", "0.0.0.0", "::1"):
        code, _out, err = run(capsys, "--lang", "en", "join", "--bind", bad, "--list")
        assert code == EXIT_USAGE, bad
        assert bad in err


def test_help_follows_the_language(capsys):
    code, out_it, _ = run(capsys, "--lang", "it", "demo", "--help")
    assert code == 0 and "numero di peer" in out_it
    code, out_en, _ = run(capsys, "--lang", "en", "demo", "--help")
    assert code == 0 and "number of peers" in out_en


def test_help_placeholders_are_the_words_its_text_uses(capsys):
    # The Italian help said "--partition START:SECONDS ... per SECONDI, INIZIO secondi" (H101).
    code, out_it, _ = run(capsys, "--lang", "it", "host", "--help")
    out_it = " ".join(out_it.split())  # argparse wraps the lines
    assert code == 0
    assert "--partition INIZIO:SECONDI" in out_it and "per SECONDI, INIZIO secondi" in out_it
    assert "--skip-idle-after SECONDI" in out_it and "da SECONDI secondi" in out_it
    assert "--timed MINUTI" in out_it and "SECONDS" not in out_it
    code, out_en, _ = run(capsys, "--lang", "en", "host", "--help")
    assert code == 0 and "--partition START:SECONDS" in out_en and "--timed MINUTES" in out_en


def test_lang_is_accepted_after_the_subcommand(capsys, tmp_path):
    code, _out, err = run(capsys, "verify", str(tmp_path / "x"), "--lang", "en")
    assert code == EXIT_USAGE and "no such file" in err


def test_a_real_process_prints_no_traceback(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "ui.cli", "--lang", "en", "verify", str(tmp_path / "missing.log")],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == EXIT_USAGE
    assert proc.stdout == ""
    assert proc.stderr.strip() == f"lanopoli: error: no such file: {tmp_path / 'missing.log'}"


@pytest.mark.parametrize(
    ("euro", "text"),
    [
        (0, "€0"),
        (1, "€1"),
        (999, "€999"),
        (1000, "€1.000"),
        (1500, "€1.500"),
        (8750, "€8.750"),
        (1_000_000, "€1.000.000"),
        (-200, "-€200"),
        (-15000, "-€15.000"),
    ],
)
def test_money_uses_the_italian_thousands_separator(euro, text):
    assert format_money(euro) == text


@pytest.mark.parametrize("bad", [1.5, True, "1500", None])
def test_money_is_an_int(bad):
    with pytest.raises(TypeError):
        format_money(bad)


@pytest.mark.parametrize(
    ("flag", "env", "lang"),
    [
        ("en", {"LANG": "it_IT.UTF-8"}, "en"),
        ("it", {"LANG": "en_US.UTF-8"}, "it"),
        (None, {"LANG": "en_US.UTF-8"}, "en"),
        (None, {"LANG": "it_IT.UTF-8"}, "it"),
        (None, {"LANG": "C.UTF-8"}, "it"),
        (None, {"LANG": "de_DE.UTF-8"}, "it"),
        (None, {}, "it"),
        (None, {"LC_ALL": "en_GB.UTF-8", "LANG": "it_IT.UTF-8"}, "en"),
        (None, {"LANGUAGE": "en_GB:it", "LC_ALL": "it_IT.UTF-8"}, "en"),
        (None, {"LANGUAGE": "", "LANG": "en"}, "en"),
    ],
)
def test_language_choice(flag, env, lang):
    assert choose_language(flag, env) == lang


def test_english_from_the_locale_reaches_the_messages(tmp_path):
    env = {"LANG": "en_US.UTF-8", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "ui.cli", "verify", str(tmp_path / "m.log")],
                          cwd=ROOT, capture_output=True, text=True, env=env, timeout=60)
    assert "no such file" in proc.stderr


def test_a_file_that_is_not_a_log_fails_in_its_header(capsys, tmp_path):
    junk = tmp_path / "junk.log"
    junk.write_bytes(b"this is not a lanopoli log\n" * 10)
    code, out, _err = run(capsys, "--lang", "en", "verify", str(junk))
    assert code == 1
    assert "The log is NOT valid in its header (before step 0): not a lanopoli log (bad magic)" in out
    code, out, _err = run(capsys, "--lang", "en", "verify", str(junk), "--json")
    summary = json.loads(out)
    assert code == 1 and summary["ok"] is False and summary["first_bad_step"] == -1
