"""The ``lanopoli`` command: ``demo``, ``verify``, ``host``, ``join``, ``play`` (the terminal UI).

``main(argv) -> int`` parses the arguments, picks the language (Italian unless ``--lang en`` or
an English locale), runs one subcommand and returns the exit code:

* 0: success (demo: every peer reported the same final state hash; verify: the log checks out).
* 1: the thing checked failed (peers disagree, a peer crashed or timed out, a bad log).
* 2: the user's request cannot be carried out (bad arguments, a missing file, an unknown
  interface). One line on stderr, never a traceback.
* 3: ``verify`` only: the log is valid as far as it goes but ends before the game does.
* 130: interrupted with Ctrl-C (children reaped first).

Player-facing text goes through ``ui.i18n._`` (gettext); machine-readable output (the line
``final state hash: <hex>``, ``--json``, ``--progress-json``) is never translated.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import NoReturn, Sequence

from ui.errors import (EXIT_ABANDONED, EXIT_FAILED, EXIT_INCOMPLETE, EXIT_INTERRUPTED, EXIT_OK, EXIT_TERMINATED,
                       EXIT_USAGE, UsageError)
from ui.signals import Terminated, run_until_signalled
from ui.i18n import _, choose_language, set_language

DEFAULT_EDITION = "classico"
DEFAULT_DEMO_PEERS = 4
MIN_PEERS = 2
MAX_PEERS = 8
#: Seconds a demo may take before its children are killed: a bot game on loopback takes
#: seconds, a slow CI machine a few minutes at most.
DEFAULT_DEMO_TIMEOUT_S = 600.0
#: Seconds a headless host/join peer waits for the game to finish (lobby included).
DEFAULT_PEER_TIMEOUT_S = 3600.0
#: Seconds ``join --list`` browses (games answer in ~0.1 s on a LAN, DESIGN.md §5).
LIST_WAIT_S = 2.0
#: Seconds ``join`` looks for its game (the host may start a little later).
JOIN_WAIT_S = 30.0


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line (plus a hint) instead of the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: {_('error')}: {message}\n" + _("(try: {prog} --help)").format(prog=self.prog) + "\n")


def _whole_number(text: str, low: int, high: int) -> int:
    """``text`` as an int in ``low``..``high``, else ``argparse.ArgumentTypeError`` (a translated
    line): the check of every whole-number flag below."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("{value!r} is not a whole number").format(value=text)) from None
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(
            _("must be between {low} and {high}, not {value}").format(low=low, high=high, value=value)
        )
    return value


def _number(text: str, not_a_number: str) -> float:
    """``text`` as a float, else ``argparse.ArgumentTypeError(not_a_number)`` (a translated line
    with ``{value!r}``, the text): the first check of every number flag below."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(not_a_number.format(value=text)) from None


def _peers_count(text: str) -> int:
    """argparse type for --peers/--seats: an int in MIN_PEERS..MAX_PEERS."""
    return _whole_number(text, MIN_PEERS, MAX_PEERS)


def _positive_seconds(text: str) -> float:
    """argparse type for --timeout: seconds, a number > 0."""
    value = _number(text, _("{value!r} is not a number of seconds"))
    if not value > 0:
        raise argparse.ArgumentTypeError(_("must be more than 0 seconds"))
    return value


def _probability(text: str) -> float:
    """argparse type for --loss/--duplicate/--reorder: a number in [0, 1)."""
    value = _number(text, _("{value!r} is not a number"))
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(_("must be at least 0 and less than 1, not {value}").format(value=text))
    return value


def _partition(text: str) -> tuple[float, float]:
    """argparse type for --partition START:SECONDS (both seconds, START >= 0, SECONDS > 0)."""
    try:
        start, length = (float(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(_("{value!r} is not START:SECONDS").format(value=text)) from None
    if start < 0 or length <= 0:
        raise argparse.ArgumentTypeError(_("{value!r} is not START:SECONDS").format(value=text))
    return (start, length)


def _drop_timeout(text: str) -> int:
    """argparse type for --drop-timeout: whole seconds in the range of protocol.md §C7.1."""
    from p2p.const import MAX_DROP_TIMEOUT, MIN_DROP_TIMEOUT

    return _whole_number(text, MIN_DROP_TIMEOUT, MAX_DROP_TIMEOUT)


def _port(text: str) -> int:
    """argparse type for --port: a TCP port, 1..65535."""
    return _whole_number(text, 1, 65535)


def _minutes(text: str) -> float:
    """argparse type for --timed: minutes, more than 0 and at most 1440 (fractions allowed)."""
    value = _number(text, _("{value!r} is not a number"))
    if not 0 < value <= 1440:
        raise argparse.ArgumentTypeError(_("must be more than 0 and at most 1440 minutes, not {value}").format(value=text))
    return value


def add_rule_flags(p: argparse.ArgumentParser) -> None:
    """The lobby options of the game (engine/rules/house_rules.py, all off by default; part of
    the signed setup): house rules and the timed game (docs/RULES.md)."""
    rules = p.add_argument_group(_("game options (all off by default)"))
    rules.add_argument("--timed", type=_minutes, metavar=_("MINUTES"),
                       help=_("timed game: when the time is up the richest wins (editrice-giochi, fabrianopoli)"))
    rules.add_argument("--free-parking-pot", action="store_true",
                       help=_("taxes and fines go to a pot taken by whoever lands on free parking"))
    rules.add_argument("--no-auctions", action="store_true", help=_("a declined property stays with the bank"))
    rules.add_argument("--double-go", action="store_true", help=_("landing exactly on GO pays twice the salary"))


def add_resilience_flags(p: argparse.ArgumentParser, *, rules: bool) -> None:
    """The network-fault flags (local: they only change what this machine sends and receives,
    protocol.md §N6) and, with ``rules``, the seat-loss rule of the game (part of
    the signed setup, protocol.md §C7.1)."""
    if rules:
        p.add_argument("--on-drop", choices=("bot", "bankrupt", "off"), default="bot",
                       help=_("what happens to the seat of a player silent for --drop-timeout seconds: "
                              "a bot plays it, it goes bankrupt, or the game waits (default: bot)"))
        p.add_argument("--drop-timeout", type=_drop_timeout, default=30,
                       help=_("seconds of silence after which a player's seat is dropped (default 30)"))
    faults = p.add_argument_group(_("simulated network faults (tests and demos)"))
    faults.add_argument("--loss", type=_probability, default=0.0, help=_("fraction of datagrams lost"))
    faults.add_argument("--duplicate", type=_probability, default=0.0, help=_("fraction of datagrams sent twice"))
    faults.add_argument("--reorder", type=_probability, default=0.0,
                        help=_("fraction of datagrams held back so that later ones overtake them"))
    faults.add_argument("--partition", type=_partition, action="append", default=[], metavar=_("START:SECONDS"),
                        help=_("cut this peer off the network for SECONDS, START seconds after the game starts (repeatable)"))


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with help texts in the current language."""
    lang = argparse.ArgumentParser(add_help=False)
    lang.add_argument("--lang", choices=("it", "en"), default=argparse.SUPPRESS,
                      help=_("language of the messages (default: Italian, or English from the locale)"))

    parser = _Parser(prog="lanopoli", parents=[lang],
                     description=_("Serverless peer-to-peer Monopoly for a local network."))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    demo = sub.add_parser("demo", parents=[lang], help=_("play a whole bot game between local processes"),
                          description=_("Start N bot peers as separate processes on 127.0.0.1; they find "
                                        "each other with mDNS and play a whole game over UDP."))
    demo.add_argument("--peers", type=_peers_count, default=DEFAULT_DEMO_PEERS,
                      help=_("number of peers, {low}-{high} (default {default})").format(
                          low=MIN_PEERS, high=MAX_PEERS, default=DEFAULT_DEMO_PEERS))
    demo.add_argument("--seed", help=_("make the game reproducible (demos and tests only: secrets derive from it)"))
    demo.add_argument("--edition", default=DEFAULT_EDITION, help=_("edition of the rules (default {default})").format(default=DEFAULT_EDITION))
    demo.add_argument("--log-dir", type=Path, help=_("directory for the peers' game logs (default: a new temporary directory)"))
    demo.add_argument("--timeout", type=_positive_seconds, default=DEFAULT_DEMO_TIMEOUT_S,
                      help=_("seconds before the demo gives up (default {default:g})").format(default=DEFAULT_DEMO_TIMEOUT_S))
    demo.add_argument("--bot", default="default", help=_("bot that plays every seat (default: default)"))
    add_rule_flags(demo)
    add_resilience_flags(demo, rules=True)
    demo.set_defaults(run=_cmd_demo)

    verify = sub.add_parser("verify", parents=[lang], help=_("re-check a game log"),
                            description=_("Re-check a peer's game log: every signature it needs (a forced "
                                          "reveal at a chance step needs none), every hash-chain reveal "
                                          "and every step's state hash, by replaying the game."))
    verify.add_argument("log", type=Path, help=_("the game log to check"))
    verify.add_argument("--json", action="store_true", help=_("print the summary as JSON"))
    verify.set_defaults(run=_cmd_verify)

    for name, help_text in (("host", _("advertise a game on the LAN and play it with a bot")),
                            ("join", _("join a game advertised on the LAN and play it with a bot"))):
        p = sub.add_parser(name, parents=[lang], help=help_text, description=help_text)
        where = p.add_mutually_exclusive_group()
        where.add_argument("--interface", metavar="NAME", help=_("network interface to use, e.g. eth0"))
        where.add_argument("--bind", metavar="ADDRESS", help=_("IPv4 address to use, e.g. 192.168.1.20"))
        p.add_argument("--name", help=_("player name shown to the others"))
        p.add_argument("--bot", default="default", help=_("bot that plays this seat (default: default)"))
        p.add_argument("--seed", help=_("derive this peer's secrets from a seed (demos and tests only)"))
        p.add_argument("--log-dir", type=Path, help=_("directory for the game log"))
        p.add_argument("--config-dir", type=Path, help=_("directory of this player's keys"))
        p.add_argument("--progress-json", action="store_true",
                       help=_("print progress as JSON lines on stdout (protocol.md part L)"))
        p.add_argument("--timeout", type=_positive_seconds, default=DEFAULT_PEER_TIMEOUT_S,
                       help=_("seconds before giving up (default {default:g})").format(default=DEFAULT_PEER_TIMEOUT_S))
        p.add_argument("--fault-seed", type=int, default=None,
                       help=_("seed of the simulated network faults (default: from --seed)"))
        add_resilience_flags(p, rules=name == "host")
        p.add_argument("--skip-idle-after", type=_positive_seconds, metavar=_("SECONDS"),
                       help=_("vote to let the turn of a player the game has waited SECONDS for pass "
                              "(a majority of the seats must agree; headless peers and tests)"))
        if name == "host":
            p.add_argument("--seats", type=_peers_count, default=MIN_PEERS,
                           help=_("number of players, {low}-{high} (default {default})").format(
                               low=MIN_PEERS, high=MAX_PEERS, default=MIN_PEERS))
            p.add_argument("--edition", default=DEFAULT_EDITION, help=_("edition of the rules (default {default})").format(default=DEFAULT_EDITION))
            add_rule_flags(p)
            p.set_defaults(run=_cmd_host)
        else:
            p.add_argument("--list", action="store_true", help=_("list the advertised games and exit"))
            which = p.add_mutually_exclusive_group()
            which.add_argument("--game", metavar="ID", help=_("the game to join: its id, or the start of it (see --list)"))
            which.add_argument("--code", metavar="ADDRESS:PORT/CODE",
                               help=_("join the host at this address by its join code (no multicast needed)"))
            p.add_argument("--wait", type=_positive_seconds, default=None,
                           help=_("seconds to look for games (default: {listing:g} with --list, {joining:g} to join)").format(
                               listing=LIST_WAIT_S, joining=JOIN_WAIT_S))
            p.set_defaults(run=_cmd_join)

    play = sub.add_parser("play", parents=[lang], help=_("play in the terminal: find or create a game on the LAN"),
                          description=_("Open the game in the terminal: your name, the games on the network, "
                                        "create or join one, then play it with the keyboard or the mouse."))
    _person_flags(play)
    play.add_argument("--log-dir", type=Path, help=_("directory for the game log"))
    play.add_argument("--config-dir", type=Path, help=_("directory of this player's keys"))
    play.add_argument("--browser", action="store_true",
                      help=_("play in a browser tab instead of the terminal (served on 127.0.0.1 only)"))
    play.add_argument("--port", type=_port, default=None,
                      help=_("with --browser: the local port of the page (default: a free one)"))
    play.set_defaults(run=_cmd_play, watch=False)

    watch = sub.add_parser("watch", parents=[lang], help=_("watch the games on the LAN: live standings, boards read-only"),
                           description=_("List every game on the network with its players and live standings; "
                                         "open one to follow its board, every move verified (a teacher's view)."))
    _person_flags(watch)
    watch.add_argument("--config-dir", type=Path, help=_("directory of this player's keys"))
    watch.set_defaults(run=_cmd_watch, watch=True, log_dir=None, browser=False)
    return parser


def _person_flags(p: argparse.ArgumentParser) -> None:
    """``--interface`` | ``--bind`` and ``--name``: the flags of the commands a person runs
    (``play``, ``watch``)."""
    where = p.add_mutually_exclusive_group()
    where.add_argument("--interface", metavar="NAME", help=_("network interface to use, e.g. eth0"))
    where.add_argument("--bind", metavar="ADDRESS", help=_("IPv4 address to use, e.g. 192.168.1.20"))
    p.add_argument("--name", help=_("player name shown to the others"))


def _language_flag(argv: Sequence[str]) -> str | None:
    """The value of --lang anywhere in argv, read before the parser exists (its help texts
    depend on it); an invalid value is left for the parser to refuse."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--lang")
    known, _rest = pre.parse_known_args(list(argv))
    return known.lang if known.lang in ("it", "en") else None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``lanopoli``; returns the process exit code (see the module docstring)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    set_language(choose_language(_language_flag(argv)))
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help or a usage error: argparse already printed
        return int(exc.code or 0) if isinstance(exc.code, int) else EXIT_USAGE
    args.argv = argv  # ``play --browser`` runs the same command in each browser tab
    try:
        return args.run(args)
    except UsageError as exc:
        print(f"lanopoli: {_('error')}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(_("interrupted"), file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``lanopoli verify LOG --json | head``): not our error. Point
        # stdout at devnull so the interpreter's final flush does not raise again.
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


# --- demo --------------------------------------------------------------------------------


def _cmd_demo(args: argparse.Namespace) -> int:
    """``lanopoli demo``: see ui/demo.py for the orchestration."""
    from ui import demo, display
    from ui.i18n import current_language

    if args.log_dir is None:
        log_dir = Path(tempfile.mkdtemp(prefix="lanopoli-demo-"))
    else:
        log_dir = args.log_dir
        if log_dir.exists() and not log_dir.is_dir():
            raise UsageError(_("{path} exists and is not a directory").format(path=log_dir))
        if demo.earlier_game_logs(log_dir):
            raise UsageError(_("{path} already holds the game logs of an earlier demo; "
                               "choose another --log-dir or remove that directory").format(path=log_dir))
    opts = demo.DemoOptions(peers=args.peers, seed=args.seed, edition=args.edition, log_dir=log_dir,
                            timeout_s=args.timeout, bot=args.bot, lang=current_language(),
                            on_drop=args.on_drop, drop_timeout=args.drop_timeout, loss=args.loss,
                            duplicate=args.duplicate, reorder=args.reorder, partitions=tuple(args.partition),
                            timed=args.timed, free_parking_pot=args.free_parking_pot,
                            no_auctions=args.no_auctions, double_go=args.double_go)
    from ui.peer import describe_options, game_options

    game_options(args)  # a bad combination fails here, before any child starts
    print(describe_options(args))
    print(_("Game logs in: {path}").format(path=log_dir), file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="lanopoli-keys-") as keys, display.DemoDisplay(args.peers) as live:
        try:
            outcome = run_until_signalled(demo.run_demo(opts, Path(keys), live.update))
        except OSError as exc:
            raise UsageError(_("cannot start the peers: {error}").format(error=exc)) from exc
        except Terminated:
            print(_("stopped"), file=sys.stderr)
            return EXIT_TERMINATED
    return display.print_demo_outcome(outcome, opts)


# --- verify ------------------------------------------------------------------------------


def _cmd_verify(args: argparse.Namespace) -> int:
    """``lanopoli verify LOG [--json]``: replay and check a game log with p2p.verify."""
    from p2p.verify import verify_log
    from ui import verify_text

    path: Path = args.log
    if not path.exists():
        raise UsageError(_("no such file: {path}").format(path=path))
    if not path.is_file():
        raise UsageError(_("not a file: {path}").format(path=path))
    try:
        report = verify_log(path)
    except OSError as exc:
        raise UsageError(_("cannot read {path}: {error}").format(path=path, error=exc.strerror or exc)) from exc
    summary = verify_text.report_summary(report, path)
    if args.json:
        print(json.dumps(summary, indent=2, sort_keys=True))
    else:
        verify_text.print_verify_summary(summary)
    if not summary["ok"]:
        return EXIT_FAILED
    if summary.get("abandoned"):
        return EXIT_ABANDONED  # a signed ABANDON ends the log: valid, no winner (protocol.md §C8.7)
    return EXIT_OK if summary.get("complete") else EXIT_INCOMPLETE


# --- host / join -------------------------------------------------------------------------


def _cmd_host(args: argparse.Namespace) -> int:
    """``lanopoli host``: advertise a game and play one seat with a bot."""
    from ui import peer

    return peer.run_headless(args, role="host")


def _cmd_join(args: argparse.Namespace) -> int:
    """``lanopoli join``: list (``--list``) or join an advertised game and play it with a bot."""
    from ui import peer

    if args.wait is None:
        args.wait = LIST_WAIT_S if args.list else JOIN_WAIT_S
    if args.list:
        return peer.list_games(args)
    return peer.run_headless(args, role="join")


def _cmd_play(args: argparse.Namespace) -> int:
    """``lanopoli play``: the Textual terminal UI (ui/app.py); with ``--browser`` the same UI
    served on 127.0.0.1 to a browser tab (ui/browser.py)."""
    if args.browser:
        from ui import browser
        from ui.peer import resolve_endpoint

        resolve_endpoint(args)  # a bad --interface/--bind fails here, not in each tab
        port = args.port or browser.free_port()
        print(_("lanopoli is at http://{host}:{port} (this computer only); Ctrl+C stops it.").format(
            host=browser.HOST, port=port), file=sys.stderr)
        try:
            browser.serve(browser.play_command(args.argv), port)
        except OSError as exc:
            raise UsageError(_("cannot serve the page on {host}:{port}: {error}").format(
                host=browser.HOST, port=port, error=exc.strerror or exc)) from exc
        return EXIT_OK
    from ui.app import run_play

    return run_play(args)


def _cmd_watch(args: argparse.Namespace) -> int:
    """``lanopoli watch``: the list of games with live standings; Enter follows one (ui/app.py,
    ui/screens/watch.py, protocol.md §N10)."""
    from ui.app import run_play

    return run_play(args)


__all__ = ["main", "build_parser"]

if __name__ == "__main__":
    sys.exit(main())
