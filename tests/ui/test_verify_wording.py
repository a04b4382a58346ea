"""What ``lanopoli verify`` claims about signatures, in both languages.

Since protocol version 4 a forced body (a reveal at a plain chance step, protocol.md §C3.8
"Forced reveals") is accepted whatever its signature, so the verdict and the command's help
say "every signature it needs", never "every signature"."""
import io

import pytest

from ui import verify_text
from ui.i18n import set_language

from test_cli import run  # main(argv) -> (exit code, stdout, stderr)

VALID = {"ok": True, "complete": True, "log": "x.log", "edition": "classico", "seats": 2, "steps": 9,
         "messages": 20, "winner": 0, "winner_name": "Anna", "final_state_hash": "ab" * 32, "events": {}}
VERDICT = {
    "en": "The log is valid: every signature it needs, every reveal and every state hash checks out "
          "(a forced reveal at a chance step needs no signature).",
    "it": "Il log è valido: ogni firma richiesta, ogni rivelazione e ogni hash di stato tornano "
          "(una rivelazione forzata in un passo di sorte non richiede firma).",
}


@pytest.fixture(autouse=True)
def _back_to_english():
    yield
    set_language("en")


@pytest.mark.parametrize("lang", ["en", "it"])
def test_a_valid_log_is_said_to_pass_every_signature_it_needs(lang):
    set_language(lang)
    out = io.StringIO()
    verify_text.print_verify_summary(VALID, out)
    lines = out.getvalue().splitlines()
    assert VERDICT[lang] in lines
    assert not any("every signature," in line or "ogni firma," in line for line in lines)


@pytest.mark.parametrize("lang,needs", [("en", "every signature it needs (a forced reveal at a chance step needs none)"),
                                        ("it", "ogni firma richiesta (una rivelazione forzata in un passo di sorte "
                                               "non ne richiede)")])
def test_verify_help_says_which_signatures_it_checks(capsys, lang, needs):
    try:
        code, out, _err = run(capsys, "verify", "--lang", lang, "--help")
    except SystemExit as done:  # argparse's --help
        code, out = done.code, capsys.readouterr().out
    assert code == 0
    assert needs in " ".join(out.split())
