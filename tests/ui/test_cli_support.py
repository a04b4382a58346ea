"""The CLI's helpers: gettext catalog, interface choice, demo orchestration and its report.

Issue text: "--interface/--bind ... if neither is given, use the address of the interface with
the default route and SAY which one"; "exits 0 only if all N children reported the same final
hash (otherwise non-zero, saying who disagrees). Kills children on Ctrl-C / timeout".
"""

from __future__ import annotations

import asyncio
import io
import json
import sys
from pathlib import Path

import pytest

from ui import demo, display, netif
from ui.i18n import LOCALE_DIR, set_language
from ui.i18n import msgfmt

UI = Path(__file__).resolve().parents[2] / "ui"

ROUTES = """Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0
eth0\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0
eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
"""


@pytest.fixture(autouse=True)
def _english():
    set_language("en")
    yield
    set_language("en")


# --- resilience lines ---------------------------------------------------------------------


def test_waiting_lines_show_seconds_in_the_users_language():
    """A dot in an Italian number reads as the thousands separator ("€1.500"): the seconds of a
    waiting line take the decimal comma in Italian, the dot in English (ui.i18n.format_seconds)."""
    line = {"type": "waiting", "step": 418, "seats": [2], "names": ["bot-2"], "waited_s": 3.5,
            "deadline_s": 26.54, "paused": False, "abandon_s": None}
    paused = dict(line, waited_s=4.4, deadline_s=0.0, paused=True, abandon_s=55.6)
    assert "(3.5 s)" in display.resilience_line(line) and "26.5 s" in display.resilience_line(line)
    set_language("it")
    assert "(3,5 s)" in display.resilience_line(line) and "26,5 s" in display.resilience_line(line)
    assert "(4,4 s)" in display.resilience_line(paused) and "55,6 s" in display.resilience_line(paused)


# --- gettext catalog ---------------------------------------------------------------------


PO = LOCALE_DIR / "it" / "LC_MESSAGES" / "lanopoli.po"


def test_every_message_has_an_italian_translation():
    assert len(msgfmt.extract_messages()) > 50, "the _() extraction is broken"
    # On failure: append the printed entries to the .po, translate them, run python -m ui.i18n.msgfmt
    assert msgfmt.missing_entries(PO.read_text(encoding="utf-8")) == ""


def test_missing_entries_are_ready_to_paste(tmp_path):
    (tmp_path / "screen.py").write_text(
        'from ui.i18n import _, ngettext\n'
        'a = _("Rent: {money}")\nb = _(\'He said "no"\')\nc = ngettext("one house", "{n} houses", 2)\n'
        'd = _("Known")\ne = _(dynamic)\n')
    po = 'msgid "Known"\nmsgstr "Noto"\n'
    entries = msgfmt.missing_entries(po, tmp_path)
    assert entries.split("\n\n") == [
        'msgid "Rent: {money}"\nmsgstr ""',
        'msgid "He said \\"no\\""\nmsgstr ""',
        'msgid "one house"\nmsgid_plural "{n} houses"\nmsgstr[0] ""\nmsgstr[1] ""\n',
    ]
    # Once translated, the pasted entries parse back to the same msgids.
    translated = entries.replace('msgstr ""', 'msgstr "x"').replace('msgstr[0] ""', 'msgstr[0] "y"')
    assert msgfmt.missing_entries(po + "\n" + translated, tmp_path) == ""


def test_compiled_catalog_matches_the_po_file():
    assert msgfmt.main(["--check"]) == 0


def test_msgfmt_output_is_read_by_gettext(tmp_path):
    import gettext

    po = 'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "Steps"\nmsgstr "Passi"\n' \
         '\n#, fuzzy\nmsgid "Guess"\nmsgstr "Indovina"\n\nmsgid "one"\nmsgid_plural "many"\nmsgstr[0] "uno"\nmsgstr[1] "tanti"\n'
    (tmp_path / "x.mo").write_bytes(msgfmt.compile_mo(msgfmt.parse_po(po)))
    with open(tmp_path / "x.mo", "rb") as fh:
        t = gettext.GNUTranslations(fh)
    assert t.gettext("Steps") == "Passi"
    assert t.gettext("Guess") == "Guess"  # fuzzy entries are left out, as GNU msgfmt does
    assert t.ngettext("one", "many", 1) == "uno" and t.ngettext("one", "many", 3) == "tanti"


def test_msgfmt_names_the_bad_line():
    with pytest.raises(msgfmt.PoSyntaxError, match=r"x.po:2"):
        msgfmt.parse_po('msgid "a"\nmsgstr unquoted\n', "x.po")


# --- network interface -------------------------------------------------------------------


def test_default_route_picks_the_lowest_metric():
    assert netif.default_route_interface(ROUTES) == "eth0"


def test_no_default_route_is_an_error():
    only_local = ROUTES.splitlines()[0] + "\n" + ROUTES.splitlines()[3] + "\n"
    with pytest.raises(netif.InterfaceError) as info:
        netif.default_route_interface(only_local)
    assert info.value.kind == "no_default_route"


def test_loopback_interface_resolves():
    assert netif.interface_address("lo") == "127.0.0.1"
    assert netif.choose_endpoint("lo", None) == netif.Endpoint("127.0.0.1", "lo", guessed=False)


def test_bind_address_is_taken_as_given():
    assert netif.choose_endpoint(None, "127.0.0.1") == netif.Endpoint("127.0.0.1", None, guessed=False)


@pytest.mark.parametrize("bad", ["0.0.0.0", "224.0.0.251", "localhost", "::1", "300.1.1.1"])
def test_bind_refuses(bad):
    with pytest.raises(netif.InterfaceError) as info:
        netif.check_address(bad)
    assert info.value.kind == "bad_address"


def test_no_choice_is_a_guess_the_cli_must_announce(monkeypatch):
    monkeypatch.setattr(netif, "default_route_interface", lambda: "lo")
    assert netif.choose_endpoint(None, None) == netif.Endpoint("127.0.0.1", "lo", guessed=True)


# --- demo orchestration ------------------------------------------------------------------


def opts(tmp_path: Path, peers: int = 3, timeout: float = 30.0, seed: str | None = "7") -> demo.DemoOptions:
    return demo.DemoOptions(peers=peers, seed=seed, edition="classico", log_dir=tmp_path / "logs", timeout_s=timeout)


def test_peer_seeds_are_distinct_and_reproducible():
    seeds = [demo.peer_seed("42", i) for i in range(8)]
    assert len(set(seeds)) == 8
    assert seeds == [demo.peer_seed("42", i) for i in range(8)]
    assert demo.peer_seed("43", 0) != seeds[0]


def test_child_commands_host_then_join_on_loopback(tmp_path):
    o = opts(tmp_path, peers=4)
    host = demo.child_command(o, 0, "", tmp_path)
    join = demo.child_command(o, 2, "127.0.0.1:40211/7KQ2M-XH3PA", tmp_path)
    assert host[1:4] == ["-m", "ui.cli", "host"] and host[host.index("--seats") + 1] == "4"
    assert join[1:4] == ["-m", "ui.cli", "join"] and join[join.index("--code") + 1] == "127.0.0.1:40211/7KQ2M-XH3PA"
    assert "--game" not in join  # never picked by game id on mDNS (tests/e2e/test_demo_same_seed.py)
    for argv in (host, join):
        assert argv[argv.index("--bind") + 1] == "127.0.0.1"
        assert "--progress-json" in argv
    assert host[host.index("--seed") + 1] != join[join.index("--seed") + 1]
    assert host[host.index("--config-dir") + 1] != join[join.index("--config-dir") + 1]
    assert "--seed" not in demo.child_command(opts(tmp_path, seed=None), 0, "", tmp_path)


def fake_child(script: str):
    """A command factory running ``script`` with {index} substituted, instead of a real peer."""

    def command(o: demo.DemoOptions, index: int, label: str, config_root: Path) -> list[str]:
        return [sys.executable, "-c", script.replace("{index}", str(index))]

    return command


HOSTING = "print(json.dumps({'type':'hosting','game_id':'00'*16,'address':'127.0.0.1','port':1}))\n"
DONE = ("import json,sys,time\n" + HOSTING +
        "print(json.dumps({'type':'found','peers':3,'elapsed_s':0.1}))\n"
        "print(json.dumps({'type':'progress','step':5,'turn':1,'current':0,'leader':0}))\n"
        "print('not json')\n"
        "print(json.dumps({'type':'done','final_state_hash':HASH,'winner':1,'winner_name':'bot-1',"
        "'steps':9,'log':'p{index}.log','seat':{index},'maxrss_kb':1000}))\n")


def run_fake(tmp_path, script, **kw):
    updates = []
    outcome = asyncio.run(demo.run_demo(opts(tmp_path, **kw), tmp_path, lambda peers: updates.append(1), fake_child(script)))
    return outcome, updates


def test_agreeing_children_make_a_passing_demo(tmp_path):
    outcome, updates = run_fake(tmp_path, "HASH='ab'*32\n" + DONE)
    assert outcome.ok and outcome.agreed_hash == "ab" * 32
    assert [p.returncode for p in outcome.peers] == [0, 0, 0]
    assert [p.garbage_lines for p in outcome.peers] == [1, 1, 1]
    assert updates
    out = io.StringIO()
    assert display.print_demo_outcome(outcome, opts(tmp_path), out=out, err=io.StringIO()) == 0
    assert f"final state hash: {'ab' * 32}" in out.getvalue().splitlines()
    assert "lanopoli verify p0.log" in out.getvalue()


def test_a_disagreeing_child_fails_the_demo_and_is_named(tmp_path):
    outcome, _ = run_fake(tmp_path, "HASH=('cd' if {index}==2 else 'ab')*32\n" + DONE)
    assert not outcome.ok
    assert outcome.groups == {"ab" * 32: [0, 1], "cd" * 32: [2]}
    err = io.StringIO()
    assert display.print_demo_outcome(outcome, opts(tmp_path), out=io.StringIO(), err=err) == 1
    assert f"peer-2: {'cd' * 32}" in err.getvalue() and "DISAGREE" in err.getvalue()


def test_a_crashed_child_stops_the_others_and_shows_its_stderr(tmp_path):
    script = ("import sys,time,json\n" + HOSTING +
              "if {index}==1:\n    sys.stderr.write('boom: engine exploded\\n'); sys.exit(3)\n"
              "time.sleep(60)\n")
    outcome, _ = run_fake(tmp_path, script)
    assert not outcome.ok and not outcome.timed_out
    assert outcome.peers[1].returncode == 3
    assert all(p.returncode is not None for p in outcome.peers)  # nobody left running
    assert outcome.elapsed_s < 30
    err = io.StringIO()
    display.print_demo_outcome(outcome, opts(tmp_path), out=io.StringIO(), err=err)
    assert "peer-1 did not finish (exit code 3)" in err.getvalue()
    assert "boom: engine exploded" in err.getvalue()


def test_a_host_that_dies_before_hosting_ends_the_demo(tmp_path):
    outcome, _ = run_fake(tmp_path, "import sys\nsys.exit(4)\n")
    assert not outcome.ok and not outcome.timed_out
    assert outcome.peers[0].returncode == 4
    assert [p.pid for p in outcome.peers[1:]] == [None, None]  # joiners never started
    err = io.StringIO()
    display.print_demo_outcome(outcome, opts(tmp_path), out=io.StringIO(), err=err)
    assert "peer-1 was not started" in err.getvalue()


def test_joiners_are_given_the_hosts_join_code(tmp_path):
    """The joiners get the join code of the host's address, game id and key (protocol.md
    §N3.1): with a seed the key of ``host --seed peer_seed(seed, 0)``, without one the key the
    demo stored in the host's config dir before starting it."""
    from p2p.identity import Identity
    from p2p.join_code import join_code

    for seed in ("7", None):
        seen = []

        def command(o, index, code, config_root):
            seen.append((index, code))
            return [sys.executable, "-c", "import json\nHASH='ef'*32\n" + DONE.replace("{index}", str(index))]

        root = tmp_path / f"seed-{seed}"
        outcome = asyncio.run(demo.run_demo(opts(root, seed=seed), root, lambda peers: None, command))
        assert outcome.ok
        key = (Identity.from_seed(demo.peer_seed(seed, 0).encode()) if seed else
               Identity.load_or_create(root / "peer-0")).public_key
        code = join_code("127.0.0.1", 1, bytes(16), key)
        assert seen == [(0, ""), (1, code), (2, code)]


def test_seat_lines_are_notices_not_garbage(tmp_path):
    """Every line type of protocol.md part L is known to the demo: a peer's ``seat_found`` (a
    seat advert adopted, §N3.2) is kept in its notices; only unknown types count as garbage."""
    seat = "print(json.dumps({'type':'seat_found','seat':1,'address':'127.0.0.1','port':2}))\n"
    odd = "print(json.dumps({'type':'no_such_line'}))\n"
    outcome, _ = run_fake(tmp_path, "HASH='ab'*32\n" + DONE + seat + odd)
    assert outcome.ok
    assert [[n["type"] for n in p.notices] for p in outcome.peers] == [["seat_found"]] * 3
    assert [p.garbage_lines for p in outcome.peers] == [2, 2, 2]  # 'not json' and no_such_line


def test_a_hosting_line_without_an_address_ends_the_demo(tmp_path):
    script = "import json\nprint(json.dumps({'type':'hosting','game_id':'00'*16}))\nimport time\ntime.sleep(60)\n"
    outcome, _ = run_fake(tmp_path, script)
    assert not outcome.ok and not outcome.timed_out
    assert outcome.peers[0].error["code"] == "hosting"
    assert [p.pid for p in outcome.peers[1:]] == [None, None]  # joiners never started


def test_timeout_kills_every_child(tmp_path):
    script = ("import time,json\n" + HOSTING +
              "print(json.dumps({'type':'found','peers':3,'elapsed_s':0.1}),flush=True)\ntime.sleep(60)\n")
    outcome, _ = run_fake(tmp_path, script, timeout=1.0)
    assert outcome.timed_out and not outcome.ok
    assert all(p.returncode is not None for p in outcome.peers)
    assert all(p.found is not None for p in outcome.peers)


def test_a_child_ignoring_sigterm_is_killed(tmp_path, monkeypatch):
    monkeypatch.setattr(demo, "KILL_GRACE_S", 0.5)
    script = ("import signal,time,json\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n" + HOSTING +
              "time.sleep(60)\n")
    outcome, _ = run_fake(tmp_path, script, timeout=1.0)
    assert outcome.timed_out
    assert all(p.returncode is not None and p.returncode < 0 for p in outcome.peers)


def test_progress_line_follows_the_most_advanced_peer():
    peers = [demo.PeerStatus(0), demo.PeerStatus(1)]
    assert "0/2" in display.progress_text(peers, 2)
    peers[0].progress = {"type": "progress", "step": 10, "turn": 2, "current": 1, "leader": 0}
    peers[1].progress = {"type": "progress", "step": 12, "turn": 3, "current": 0, "leader": 1}
    # Seats counted from 1 for people (the JSON lines count from 0).
    assert display.progress_text(peers, 2) == "step 12 · turn 3 · to move: seat 1 · leader: seat 2"
    peers[1].progress["cash"] = [900, 2350]
    assert display.progress_text(peers, 2).endswith("leader: seat 2 (cash €2.350)")


def test_json_lines_contract_example_parses():
    # The examples of protocol.md part L must stay valid JSON objects with a "type".
    text = (Path(__file__).resolve().parents[2] / "protocol.md").read_text(encoding="utf-8")
    examples = [line.strip() for line in text.splitlines() if line.strip().startswith('{"type"')]
    assert {json.loads(e)["type"] for e in examples} >= {"found", "progress", "done"}
