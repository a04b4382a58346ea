"""Issue 14's row "peer RSS": what a headless peer imports, and how bench/bench_rows.py reads a
peer's memory samples (bench/_net_child.py writes them).

A headless peer (``lanopoli host``/``join`` with ``--progress-json``, the demo's and the
bench's children) uses ``ui.display``'s text helpers but never draws rich's live line, so it
must not import rich (~1.8 MB of its resident set, ~3 MB with what rich pulls in); nor
``cryptography`` (~8.5 MB), the editions it does not play, the niente bot and rules, or the demo
(``NOT_IMPORTED``; bench/README.md "RSS row, session 10")."""
import io
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import _rss  # noqa: E402
from _net_child import smaps_kb  # noqa: E402

HEADLESS = ("ui.cli", "ui.peer", "ui.progress", "ui.display", "p2p.node")


def test_a_headless_peer_does_not_import_rich():
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); import " + ", ".join(HEADLESS)
            + "; import json; print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'rich')))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert json.loads(out) == []


NOT_IMPORTED = ("rich", "engine.bots._niente", "engine.rules.niente_flow", "engine.rules.faceup_cards",
                "engine.rules.counterfeit", "engine.rules.bill_choice", "engine.editions.classico",
                "engine.editions.editrice_giochi", "engine.editions.fabrianopoli", "engine.editions.niente",
                "cryptography", "ui.demo")
"""What a headless peer's modules must not pull in before it knows its game (issue 14 "peer RSS",
H93): the niente bot and rules and every edition's module (engine.editions' registry imports the
one in play; engine.observation its hidden-information part on first use), ``cryptography``
(~6.6 MB: p2p uses libsodium, the ``hkdf`` package and hmac, tests/p2p/test_aead.py) and the demo
(ui.display's annotations)."""


def loaded_after(code: str) -> dict:
    """Run ``code`` in a fresh interpreter importing this checkout; its last line is JSON."""
    out = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); " + code],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_a_headless_peer_imports_no_edition_niente_bot_cryptography_or_demo():
    got = loaded_after("import " + ", ".join(HEADLESS) + ", engine; import json; "
                       f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({NOT_IMPORTED!r}))))")
    assert got == []


def test_each_edition_is_imported_when_asked_for_and_plays_as_when_imported_eagerly():
    """The lazy registry (engine/editions/__init__.py) plays all four editions, each game the same
    as in this process, where the tests' imports have loaded everything."""
    import engine
    from engine.bots import play_game

    code = ("import json, engine; from engine.bots import play_game; "
            "eds = lambda: sorted(m for m in sys.modules if m.startswith('engine.editions.') and m != 'engine.editions.base'); "
            "seen = [eds()]; games = {}\n"
            "for ed in engine.EDITIONS:\n"
            "    r = play_game(4, 7, edition=ed, max_steps=400); games[ed] = [r.turns, r.winner, r.steps, r.dice]; seen.append(eds())\n"
            "print(json.dumps([seen, games, 'niente-e-come-sembra' in engine.EDITIONS, len(engine.EDITIONS)]))")
    seen, games, contains, size = loaded_after(code)
    assert seen == [[], ["engine.editions.classico"], ["engine.editions.classico", "engine.editions.editrice_giochi"],
                    ["engine.editions.classico", "engine.editions.editrice_giochi", "engine.editions.fabrianopoli"],
                    ["engine.editions.classico", "engine.editions.editrice_giochi", "engine.editions.fabrianopoli",
                     "engine.editions.niente"]]
    assert contains and size == 4 and list(games) == list(engine.EDITIONS)
    for ed, (turns, winner, steps, dice) in games.items():
        r = play_game(4, 7, edition=ed, max_steps=400)
        assert [r.turns, r.winner, r.steps, r.dice] == [turns, winner, steps, dice]


def test_the_registry_reads_like_a_dict():
    from engine.editions import EDITIONS, niente

    assert EDITIONS["niente-e-come-sembra"] is niente.EDITION is EDITIONS.get("niente-e-come-sembra")
    assert EDITIONS.get("monopoli") is None and "monopoli" not in EDITIONS
    try:
        EDITIONS["monopoli"]
    except KeyError:
        pass
    else:
        raise AssertionError("an unknown edition must raise KeyError")


def test_engine_choose_is_the_niente_bot_without_loading_it_for_a_game_without_hidden_information():
    """engine.observation.choose answers a state without hidden information with the classic bot
    (what engine.bots._niente.choose does there) and hands the others to the niente bot: the
    same action at every decision of a classico and a niente-e-come-sembra game."""
    import engine
    from engine.bots import _niente
    from engine.bots.play import beacon

    for edition in ("classico", "niente-e-come-sembra"):
        s, k, decisions = engine.new_game(edition, 3), 0, 0
        while not engine.is_terminal(s) and k < 120:
            if engine.pending(s).chance:
                s, _ = engine.apply_chance(s, beacon(3, k))
                k += 1
                continue
            acts = [_niente.choose(s, i, "default", None) for i in range(s.n)]
            assert [engine.choose(s, i, "default", None) for i in range(s.n)] == acts
            decisions += 1
            s, _ = engine.apply_step(s, acts)
        assert decisions > 50


def test_the_demo_display_still_draws_with_rich():
    from rich.console import Console

    from ui.display import DemoDisplay

    shown = DemoDisplay(2, Console(force_terminal=True, file=io.StringIO()))
    assert not shown.plain and shown.console.is_terminal


def child(rss, end=None, smaps=None):
    c = {"rss": rss, "seat": 0}
    if end is not None:
        c["rss_end"] = end
    if smaps is not None:
        c["smaps"] = {"end": smaps}
    return c


def test_rss_figures_of_a_game_too_short_for_a_slope_still_give_its_peak():
    """A compiled 4-peer game ends before 4 progress lines: the end sample still gives max/last."""
    game = {"peers": 2, "steps": 500, "children": [
        child([[0, 1000], [200, 2048]], end=[500, 3072], smaps={"Pss": 1024, "Private_Dirty": 512}),
        child([], end=[500, 4096])]}
    fig = _rss.rss_figures(game)
    assert fig["max_mb"] == 4.0 and fig["last_mb"] == 4.0
    assert fig["kb_per_step_median"] is None
    assert fig["pss_mb_median"] == 1.0 and fig["private_mb_median"] == 0.5


def test_rss_figures_fit_the_growth_over_the_second_half():
    pts = [[s, 10_000 + 2 * s] for s in range(10, 110, 10)]
    fig = _rss.rss_figures({"peers": 1, "steps": 100, "children": [child(pts)]})
    assert fig["kb_per_step_median"] == 2.0 and fig["first_mb_median"] == round(10_020 / 1024, 1)
    assert fig["pss_mb_median"] is None  # a child without smaps (an older checkout's _net_child)


def test_rss_figures_without_any_sample_say_so():
    assert _rss.rss_figures({"peers": 1, "steps": 3, "children": [child([])]})["error"] == "no RSS sample"


def test_smaps_kb_reads_this_process_shares():
    got = smaps_kb()
    if Path("/proc/self/smaps_rollup").exists():
        assert got["Rss"] >= got["Pss"] > 0 and got["Private_Dirty"] > 0
    else:
        assert got == {}
