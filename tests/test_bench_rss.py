"""Issue 14's row "peer RSS": what a headless peer imports, and how bench/bench_rows.py reads a
peer's memory samples (bench/_net_child.py writes them).

A headless peer (``lanopoli host``/``join`` with ``--progress-json``, the demo's and the
bench's children) uses ``ui.display``'s text helpers but never draws rich's live line, so it
must not import rich (~1.8 MB of its resident set, ~3 MB with what rich pulls in)."""
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
