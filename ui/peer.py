"""``lanopoli host`` / ``lanopoli join``: one headless peer (a bot, for now) on a chosen network.

The CLI's job here is small: resolve ``--interface``/``--bind`` (``ui.netif``), say on stderr
which network is used when it had to pick the default-route interface, find the game to join
(``p2p.discovery``; with ``--code`` the host's address and join code instead, §N3.1), then
hand a ``p2p.node.PeerConfig`` to ``p2p.node.run_peer`` and turn its result into an exit code. Progress is JSON lines on stdout with ``--progress-json``
(protocol.md part L), otherwise a few translated lines on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from p2p.const import GAME_ID_LEN
from p2p.ad_record import LOBBY
from ui.display import (abandoned_text, fault_hint, fault_sentence, final_hash_line, progress_line, resilience_line,
                        seat_number, seats_error, table_code_line, winner_text)
from ui.errors import EXIT_FAILED, EXIT_OK, EXIT_TERMINATED, EXIT_USAGE, UsageError
from ui.i18n import _, format_seconds
from ui.netif import Endpoint, InterfaceError, choose_endpoint
from ui.signals import Terminated, run_until_signalled

if TYPE_CHECKING:
    from p2p.node_config import PeerResult
    from ui.backends import JoinCode


def resolve_endpoint(args: argparse.Namespace) -> Endpoint:
    """The address this peer uses, from --interface/--bind; announces a default-route guess.

    Raises ``UsageError`` (translated) when the interface or address cannot be used.
    """
    try:
        endpoint = choose_endpoint(args.interface, args.bind)
    except InterfaceError as exc:
        messages = {
            "no_such_interface": _("there is no network interface named {subject}"),
            "no_ipv4": _("the network interface {subject} has no IPv4 address"),
            "bad_address": _("{subject} is not an IPv4 address this computer can use (give e.g. 192.168.1.20)"),
            "no_default_route": _("no default route to pick a network from; pass --interface or --bind"),
        }
        raise UsageError(messages[exc.kind].format(subject=exc.subject)) from exc
    if endpoint.guessed:
        print(_("Using network interface {interface} ({address}), the one with the default route; "
                "choose another with --interface or --bind.").format(
                    interface=endpoint.interface, address=endpoint.address), file=sys.stderr)
    return endpoint


def describe_game(ad) -> str:
    """One line for ``join --list``: id, edition, seats, state (with the turn once running),
    where, the host's name and fingerprint, the seated players' names (TXT ``n``, ``p0``..,
    ``sd``: protocol.md §N3)."""
    state = _("waiting for players") if ad.state == LOBBY else _("running")
    if ad.standings is not None:
        state = _("running, turn {turn}").format(turn=ad.standings.turn)
    line = _("{gid}  {edition}  seats {taken}/{total}  {state}  {address}:{port}  host {name} {fp}").format(
        gid=ad.game_id.hex(), edition=ad.edition, taken=ad.seats_taken, total=ad.seats_total,
        state=state, address=ad.address, port=ad.port, name=ad.host_name or "?", fp=ad.fingerprint)
    if ad.players:
        line += "  " + _("players: {names}").format(names=", ".join(ad.players))
    return line


#: Seconds ``join`` keeps looking after the first open game shows up, to notice a second one.
SETTLE_S = 0.5


async def find_games(address: str, seconds: float, until=None) -> list:
    """The games advertised on the network of ``address``, sorted by game id.

    Browses for ``seconds``; with ``until`` (a predicate on a GameAd) it returns as soon as a
    matching game shows up (plus ``SETTLE_S``, so that a second match is seen too) or, with
    none, after ``seconds``. zeroconf is restricted to ``address`` (DESIGN.md §5).
    """
    from p2p.discovery import Discovery

    async with Discovery([address]) as disco:
        if until is None:
            disco.browse()
            await asyncio.sleep(seconds)
        else:
            try:
                await disco.wait_for(until, seconds)
                await asyncio.sleep(SETTLE_S)
            except TimeoutError:
                pass
        games = list(disco.games.values())
    return sorted(games, key=lambda ad: ad.game_id)


def network_error(address: str, exc: OSError) -> UsageError:
    """The one-line, translated error for a socket or zeroconf that cannot use ``address``
    (``ui.netif.check_address`` catches most bad addresses first; the kernel has the last word:
    an address being removed, a port in use, no multicast on the interface)."""
    return UsageError(_("cannot use the network address {address}: {error}").format(
        address=address, error=exc.strerror or exc))


def list_games(args: argparse.Namespace) -> int:
    """``join --list``: print the advertised games, one per line; exit 0 (even if none).
    Raises ``UsageError`` when the address cannot be used."""
    endpoint = resolve_endpoint(args)
    try:
        games = asyncio.run(find_games(endpoint.address, args.wait))
    except OSError as exc:
        raise network_error(endpoint.address, exc) from exc
    if not games:
        print(_("No games found on {address} after {seconds:g} s.").format(address=endpoint.address, seconds=args.wait),
              file=sys.stderr)
        return 0
    for ad in games:
        print(describe_game(ad))
    return 0


def is_open(ad) -> bool:
    """True for a game still in its lobby with a free seat."""
    return ad.state == LOBBY and ad.free_seats > 0


def pick_game(games: list, wanted: str | None):
    """The game to join among ``games`` (GameAd list): ``wanted`` is a game id hex prefix or
    None (then the only game with a free seat). Raises ``UsageError`` naming the choices."""
    open_games = [ad for ad in games if is_open(ad)]
    if wanted is not None:
        wanted = wanted.lower()
        matches = [ad for ad in open_games if ad.game_id.hex().startswith(wanted)]
        if not matches:
            raise UsageError(_("no open game with id {game}").format(game=wanted))
        if len(matches) > 1:
            raise UsageError(_("{game} matches several games; give more of the id").format(game=wanted))
        return matches[0]
    if not open_games:
        raise UsageError(_("no open game found; is the host running on this network?"))
    if len(open_games) > 1:
        ids = ", ".join(ad.game_id.hex()[:8] for ad in open_games)
        raise UsageError(_("several open games ({ids}); choose one with --game").format(ids=ids))
    return open_games[0]


#: Seconds between two progress lines in human (non-JSON) mode.
HUMAN_PROGRESS_INTERVAL_S = 5.0


class HumanProgress:
    """Progress callback for people: a few translated lines on stderr (the JSON lines of
    protocol.md part L are the machine form, ``--progress-json``)."""

    def __init__(self, seats: int | None, host_key: bytes | None = None) -> None:
        self.seats = seats
        #: The host's Ed25519 public key (32 bytes): the hosting line then also shows the join
        #: code that ``lanopoli play`` takes with "Indirizzo" (protocol.md §N3.1).
        self.host_key = host_key
        self._next = 0.0

    def __call__(self, msg: dict) -> None:
        kind = msg.get("type")
        if kind == "hosting":
            print(_("Game {gid} advertised on {address}:{port}; waiting for {seats} players.").format(
                gid=msg.get("game_id"), address=msg.get("address"), port=msg.get("port"), seats=self.seats),
                file=sys.stderr)
            if self.host_key is not None:
                from p2p.join_code import join_code

                code = join_code(msg["address"], msg["port"], bytes.fromhex(msg["game_id"]), self.host_key)
                print(_("Others can join from the list, or by address with the code: {code}").format(code=code),
                      file=sys.stderr)
        elif kind == "found":
            print(_("All {peers} players are here ({seconds} s): the game starts.").format(
                peers=msg.get("peers"), seconds=format_seconds(msg.get("elapsed_s") or 0.0)), file=sys.stderr)
            if msg.get("table_code"):
                print(table_code_line(msg["table_code"]), file=sys.stderr)
        elif kind == "progress":
            now = time.monotonic()
            if now >= self._next:
                self._next = now + HUMAN_PROGRESS_INTERVAL_S
                print(progress_line(msg), file=sys.stderr)
        elif kind == "same_key":  # a joiner with our key directory: it stops; tell whoever runs the host
            print(fault_hint("same_key", f"{msg.get('address')}:{msg.get('port')}"), file=sys.stderr)
        elif kind in ("waiting", "resumed", "drop_vote", "seat_dropped", "caught_up", "seat_lost", "cheater",
                      "step_overturned"):
            print(resilience_line(msg), file=sys.stderr)


def fault_plan(args: argparse.Namespace):
    """The ``p2p.faults.FaultPlan`` asked for by --loss/--duplicate/--reorder/--partition, or
    None when none is. Seeded by --fault-seed, else by --seed, else 0: repeatable."""
    from p2p.faults import FaultPlan

    loss, dup, reorder = getattr(args, "loss", 0.0), getattr(args, "duplicate", 0.0), getattr(args, "reorder", 0.0)
    parts = tuple(getattr(args, "partition", ()) or ())
    if not (loss or dup or reorder or parts):
        return None
    seed = args.fault_seed
    if seed is None:
        seed = int.from_bytes(args.seed.encode("utf-8")[:8], "big") if args.seed else 0
    # Reordering holds a datagram back 5 ms (FaultPlan default): later ones overtake it.
    return FaultPlan(seed=seed, loss=loss, dup=dup, reorder=reorder, delay=0.0, partitions=parts)


def default_log_dir() -> Path:
    """Where a peer's game logs go without --log-dir: the user data dir of "lanopoli"/logs."""
    import platformdirs

    return Path(platformdirs.user_data_dir("lanopoli")) / "logs"


def _join_target(args: argparse.Namespace, address: str) -> bytes | None:
    """The game id to join: a full id from --game as is; a prefix or nothing is resolved by
    browsing for --wait seconds (UsageError when nothing or several games match)."""
    wanted = args.game
    if wanted is not None:
        try:
            full = bytes.fromhex(wanted)
        except ValueError:
            full = None
            if not all(c in "0123456789abcdefABCDEF" for c in wanted):
                raise UsageError(_("--game takes a game id in hex (see join --list), not {game}").format(
                    game=wanted)) from None
        if full is not None and len(full) == GAME_ID_LEN:
            return full
    prefix = (wanted or "").lower()
    try:
        games = asyncio.run(find_games(address, args.wait,
                                       until=lambda ad: is_open(ad) and ad.game_id.hex().startswith(prefix)))
    except OSError as exc:
        raise network_error(address, exc) from exc
    return pick_game(games, wanted).game_id


def join_code_target(code: str) -> JoinCode:
    """``join --code``: the host's join code, ``ADDRESS:PORT/XXXXX-XXXXX`` (the tag checks the
    host's key) or ``ADDRESS:PORT/<32 hex digits of the game id>`` (no key check), protocol.md
    §N3.1 -> ``ui.backends.JoinCode``. Raises a translated ``UsageError`` if malformed."""
    from ui.backends import parse_join_code

    try:
        return parse_join_code(code)
    except ValueError:
        raise UsageError(_("--code takes the host's join code, e.g. 192.168.1.20:40000/7KQ2M-XH3PA, not {code}").format(
            code=code)) from None


def _identity(args: argparse.Namespace):
    """Our keys: None with --seed (the node derives them from it), else stored in --config-dir
    (default: the user config dir), created on first use."""
    from p2p.identity import Identity

    if args.seed is not None:
        return None
    try:
        return Identity.load_or_create(args.config_dir)
    except (ValueError, OSError) as exc:
        raise UsageError(_("cannot use the keys in {path}: {error}").format(
            path=args.config_dir or _("the user configuration directory"), error=exc)) from exc


def _can_resume(log_dir: Path, identity, wanted: str | None) -> bool:
    """True if ``log_dir`` holds an unfinished game of ours (matching the --game id or prefix
    if given) that the node will rejoin from its log instead of looking for a lobby."""
    from p2p.resume import find_resumable

    path = find_resumable(log_dir, identity)
    if path is None:
        return False
    return wanted is None or path.name.startswith("game-" + wanted.lower()[:16])


def game_options(args: argparse.Namespace) -> dict:
    """The setup options of ``host``/``demo`` flags (--timed, --free-parking-pot, --no-auctions,
    --double-go): engine lobby options (``engine.rules.house_rules``; only the ones turned on,
    so a default game's setup is unchanged) plus ``p2p.timed_ms`` for a fraction of a minute
    (``p2p.timed_clock.timed_options``). Raises UsageError for a seat count outside the edition's
    range (``Edition.min_players``..``max_players``), an edition without a timed game
    or options the engine refuses."""
    import engine
    from p2p.timed_clock import timed_options

    opts: dict = {}
    for flag, key in (("free_parking_pot", "free_parking_pot"), ("no_auctions", "no_auctions"),
                      ("double_go", "double_go_salary")):
        if getattr(args, flag, False):
            opts[key] = True
    edition = getattr(args, "edition", "classico")
    if edition not in engine.EDITIONS:  # checked here so that the message is translated
        raise UsageError(_("unknown edition {edition}; the editions are: {editions}").format(
            edition=edition, editions=", ".join(sorted(engine.EDITIONS))))
    ed = engine.EDITIONS[edition]
    if getattr(args, "timed", None) is not None:
        if not ed.timed_game:
            raise UsageError(_("the edition {edition} has no timed game").format(edition=edition))
        opts.update(timed_options(args.timed))
    seats = getattr(args, "seats", None) or getattr(args, "peers", 2)
    if (wrong := seats_error(edition, ed, seats)) is not None:
        raise UsageError(wrong)
    try:
        engine.new_game(edition, seats,
                        {k: v for k, v in opts.items() if not k.startswith("p2p.")})
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    return opts


def describe_options(args: argparse.Namespace) -> str:
    """One line with the edition and every game option, also those off (the defaults)."""
    on, off = _("on"), _("off")
    timed = getattr(args, "timed", None)
    return _("Edition {edition}; free-parking pot: {pot}; no auctions: {auctions}; double salary on GO: "
             "{double}; timed game: {timed}").format(
        edition=getattr(args, "edition", "classico"), pot=on if args.free_parking_pot else off,
        auctions=on if args.no_auctions else off, double=on if args.double_go else off,
        timed=off if timed is None else _("{minutes:g} min").format(minutes=timed))


def run_headless(args: argparse.Namespace, role: str) -> int:
    """Run one bot peer as ``role`` ("host" or "join") until the game ends; the exit code.

    0: the game ended (``done`` printed); 1: it stopped (desync, cheat, stall, timeout; an
    ``error`` line with --progress-json); 2: nothing to join or bad options; 143: SIGTERM.
    """
    from p2p.node import DISCOVERY_TIMEOUT, NodeError, PeerConfig, run_peer
    from ui.progress import progress_json, progress_printer

    endpoint = resolve_endpoint(args)
    log_dir = args.log_dir or default_log_dir()
    identity = _identity(args)
    if identity is None:
        from p2p.identity import Identity

        identity = Identity.from_seed(args.seed.encode("utf-8"))
    game_id = host_addr = host_code = None
    code = getattr(args, "code", None) if role == "join" else None
    if code is not None:  # the host's address: no browsing (the node still resumes a game of ours)
        where = join_code_target(code)
        game_id, host_code, host_addr = where.game_id, where.tag, (where.address, where.port)
    elif role == "join" and not _can_resume(log_dir, identity, args.game):
        game_id = _join_target(args, endpoint.address)
    elif role == "join" and args.game is not None and len(args.game) == 2 * GAME_ID_LEN:
        game_id = bytes.fromhex(args.game)
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(_("cannot create {path}: {error}").format(path=log_dir, error=exc.strerror or exc)) from exc
    sink = progress_printer() if args.progress_json else HumanProgress(
        getattr(args, "seats", None), identity.public_key if role == "host" else None)

    def progress(report: object) -> None:  # the node's reports, as the lines of protocol.md part L
        sink(progress_json(report))

    options = game_options(args) if role == "host" else None
    try:
        cfg = PeerConfig(role=role, bind=endpoint.address, interface=endpoint.address,
                         edition=getattr(args, "edition", "classico"), seats=getattr(args, "seats", 2),
                         options=options,
                         identity=identity, name=args.name or "", bot=args.bot,
                         demo_seed=None if args.seed is None else args.seed.encode("utf-8"),
                         game_id=game_id, host_addr=host_addr, host_code=host_code,
                         log_dir=log_dir, progress=progress, timeout=args.timeout,
                         discovery_timeout=getattr(args, "wait", None) or DISCOVERY_TIMEOUT,
                         on_drop=None if getattr(args, "on_drop", "bot") == "off" else getattr(args, "on_drop", "bot"),
                         drop_timeout=getattr(args, "drop_timeout", 30), faults=fault_plan(args),
                         skip_idle_after=getattr(args, "skip_idle_after", None))
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    try:
        result = run_until_signalled(run_peer(cfg))
    except NodeError as exc:
        if args.progress_json:
            progress(exc)
        print(_("The game stopped: {reason}").format(reason=fault_sentence(exc.code)), file=sys.stderr)
        hint = fault_hint(exc.code, str(exc))
        if hint is not None:  # e.g. one laptop, host and joiner with one key directory
            print(hint, file=sys.stderr)
        seat = getattr(exc, "seat", None)
        if seat is not None:
            print(_("Culprit: seat {seat}, at step {step}.").format(seat=seat_number(seat), step=exc.step), file=sys.stderr)
        if exc.code == "not_found":  # a usage error: one line says it all
            return EXIT_USAGE
        from ui.i18n import current_language

        if current_language() == "en":
            print(f"Detail: {exc.code}: {exc}", file=sys.stderr)
        else:
            print(_("Technical detail (in English, for a bug report): {message}").format(message=f"{exc.code}: {exc}"),
                  file=sys.stderr)
        return EXIT_FAILED
    except Terminated:
        print(_("stopped"), file=sys.stderr)
        return EXIT_TERMINATED
    except OSError as exc:  # the socket or zeroconf refused the address (run_peer closed both)
        raise network_error(endpoint.address, exc) from exc
    if not args.progress_json:
        print_result(result)
    return EXIT_OK


def print_result(result: PeerResult) -> None:
    """The end of a ``host``/``join`` game on stdout: winner, why there is none when the game
    was abandoned (``PeerResult.abandoned``, protocol.md §C8.7, the sentence verify prints),
    steps, the final state hash and the command that verifies our log."""
    print(_("Winner: {who}").format(who=winner_text(result.winner, result.winner_name)))
    if result.abandoned:
        print(abandoned_text(result.abandoned, result.names or (), result.seat))
    print(_("Steps: {steps}").format(steps=result.steps))
    print(final_hash_line(result.final_state_hash.hex(), sys.stdout))
    if result.log_path is not None:
        print(_("To check a log: lanopoli verify {path}").format(path=result.log_path))
