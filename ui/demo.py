"""``lanopoli demo``: run N bot peers as separate OS processes on loopback and check they agree.

Theory of operation: the demo is only an orchestrator. Peer 0 is started as
``python -m ui.cli host --seats N ...``; once it reports where its lobby listens (its
``hosting`` line: game id, address, port), peers 1..N-1 are started as
``python -m ui.cli join --code ADDRESS:PORT/XXXXX-XXXXX ...``: the host's join code
(protocol.md §N3.1), whose tag binds the game id to the host's key, which the demo knows
(``host_public_key``). All run with ``--bind 127.0.0.1 --bot default --progress-json``.
Joiners go to that address, never pick a game by its id on mDNS: two demos started with the
same ``--seed`` have the same game id and the same keys, and their joiners used to join
whichever host answered first (tests/e2e/test_demo_same_seed.py). Each child then learns the
others' addresses from the signed setup, plays the game over UDP, and reports on stdout one
JSON object per line (the contract is in
protocol.md part L): ``hosting`` (host only), ``found``, ``progress`` (many), ``done``. The demo reads those lines,
keeps one ``PeerStatus`` per child, calls ``on_update`` so a display can redraw, and when every
child has said ``done`` compares their final state hashes. It never decides anything about the
game itself, so a demo that passes means N independent engines agreed to the bit.

Children are always reaped: on a peer failure, on timeout, on Ctrl-C (``CancelledError``) the
remaining ones get SIGTERM, then SIGKILL after ``KILL_GRACE_S``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

#: Seconds a child gets between SIGTERM and SIGKILL.
KILL_GRACE_S = 3.0
#: Longest JSON line accepted from a child (bytes); longer lines are counted as garbage.
MAX_LINE = 1 << 16
#: Lines of a failed child's stderr shown to the user.
STDERR_TAIL_LINES = 8
#: Loopback address every demo peer binds to and restricts zeroconf to.
DEMO_ADDRESS = "127.0.0.1"
#: Child lines about restarts, seat loss and seats found again (protocol.md part L, the types of
#: ``ui.progress``), kept in ``PeerStatus.notices``; only unknown types count as garbage.
NOTICE_TYPES = frozenset(("resumed", "drop_vote", "seat_dropped", "caught_up", "seat_lost", "cheater",
                          "step_overturned", "seat_found", "seat_advert_ignored", "rendezvous_failed",
                          "reseat_asked", "seat_returned", "turn_skipped", "watch_ad_failed"))


@dataclass(frozen=True)
class DemoOptions:
    """What ``lanopoli demo`` was asked to do.

    ``peers``: 2..8 processes. ``seed``: the demo seed string or None for a fresh random game.
    ``edition``: engine edition key. ``log_dir``: directory that receives ``peer-<i>/``.
    ``timeout_s``: seconds before every child is killed and the demo fails. ``bot``: bot name
    passed to every child. ``lang``: "it"/"en", passed on so children speak the same language.
    ``python``: interpreter used for the children. ``on_drop`` ("bot", "bankrupt", "off") and
    ``drop_timeout`` (s): the seat-loss rule the host proposes. ``loss``, ``duplicate``,
    ``reorder`` (probabilities) and ``partitions`` (``(start s, seconds)`` windows, applied to
    peer 1 only): simulated network faults, each child's seeded from the demo seed
    (``fault_seed``), so a run is repeatable. ``timed`` (minutes, None: untimed),
    ``free_parking_pot``, ``no_auctions``, ``double_go``: the game options the host proposes
    (``lanopoli host`` flags of the same names).
    """

    peers: int
    seed: str | None
    edition: str
    log_dir: Path
    timeout_s: float
    bot: str = "default"
    lang: str = "it"
    python: str = sys.executable
    on_drop: str = "bot"
    drop_timeout: int = 30
    loss: float = 0.0
    duplicate: float = 0.0
    reorder: float = 0.0
    partitions: tuple = ()
    timed: float | None = None
    free_parking_pot: bool = False
    no_auctions: bool = False
    double_go: bool = False


@dataclass
class PeerStatus:
    """What the demo knows about one child. Times are seconds since the demo started."""

    index: int
    pid: int | None = None
    hosting: dict | None = None
    found: dict | None = None
    found_at: float | None = None
    progress: dict | None = None
    first_progress_at: float | None = None
    first_progress_step: int | None = None
    done: dict | None = None
    done_at: float | None = None
    returncode: int | None = None
    error: dict | None = None
    garbage_lines: int = 0
    stderr_path: Path | None = None
    #: The latest ``waiting`` line while the child waits for other seats (None once it moves on).
    waiting: dict | None = None
    #: The ``NOTICE_TYPES`` lines (``resumed``, ``drop_vote``, ``seat_found``...), in order.
    notices: list = field(default_factory=list)

    @property
    def failed(self) -> bool:
        """True once the child exited without a ``done`` line (or with a non-zero code)."""
        return self.returncode is not None and (self.done is None or self.returncode != 0)


@dataclass
class DemoOutcome:
    """The result of a demo run.

    ``agreed_hash``: the common final state hash (hex) if every peer reported ``done`` with the
    same hash, else None. ``groups``: {final hash hex: [peer indices]} over peers that finished.
    ``timed_out``: the deadline passed. ``elapsed_s``: wall time of the whole run.
    """

    peers: list[PeerStatus]
    agreed_hash: str | None
    groups: dict[str, list[int]] = field(default_factory=dict)
    timed_out: bool = False
    elapsed_s: float = 0.0

    @property
    def ok(self) -> bool:
        """True when every child finished, exited 0 and all final hashes are equal."""
        return self.agreed_hash is not None


def peer_seed(seed: str, index: int) -> str:
    """The seed string given to child ``index``: distinct per peer, fixed by the demo seed.

    Hex of SHA-256(b"lanopoli demo peer\\0" + seed + b"\\0" + index), so that peers never share
    secrets and the same demo seed always gives every peer the same secrets.
    """
    material = b"lanopoli demo peer\x00" + seed.encode("utf-8") + b"\x00" + str(index).encode()
    return hashlib.sha256(material).hexdigest()


def fault_seed(seed: str | None, index: int) -> int:
    """Seed of child ``index``'s simulated network faults: from the demo seed (0 without one),
    distinct per peer, so the same demo seed gives the same losses."""
    if seed is None:
        return index
    return int(peer_seed(seed, index)[:12], 16)


def fault_args(opts: DemoOptions, index: int) -> list[str]:
    """The fault flags of child ``index`` ([] for a fault-free demo)."""
    out: list[str] = []
    for flag, value in (("--loss", opts.loss), ("--duplicate", opts.duplicate), ("--reorder", opts.reorder)):
        if value:
            out += [flag, repr(value)]
    if index == 1:
        for start, length in opts.partitions:
            out += ["--partition", f"{start:g}:{length:g}"]
    if out:
        out += ["--fault-seed", str(fault_seed(opts.seed, index))]
    return out


def host_public_key(opts: DemoOptions, config_root: Path) -> bytes:
    """The Ed25519 public key (32 bytes) child 0 will host with: with a demo seed the key
    ``Identity.from_seed`` derives from ``peer_seed(seed, 0)`` (what ``host --seed`` uses),
    else the identity stored in ``config_root/peer-0``, created here before the host starts
    (``host --config-dir`` then loads it). Raises ``OSError``/``ValueError`` as
    ``Identity.load_or_create``."""
    from p2p.identity import Identity

    if opts.seed is not None:
        return Identity.from_seed(peer_seed(opts.seed, 0).encode("utf-8")).public_key
    return Identity.load_or_create(config_root / "peer-0").public_key


def host_join_code(hosting: dict, host_key: bytes) -> str:
    """The join code of the host's ``hosting`` line (``address``, ``port``, ``game_id`` hex) and
    its key: ``ADDRESS:PORT/XXXXX-XXXXX`` (p2p.join_code, protocol.md §N3.1). Raises
    ``ValueError``/``KeyError``/``TypeError`` on a malformed line."""
    from p2p.join_code import join_code

    game_id = bytes.fromhex(str(hosting["game_id"]))
    if len(game_id) != 16:
        raise ValueError("a game id is 16 bytes")
    return join_code(str(hosting["address"]), int(hosting["port"]), game_id, host_key)


def child_command(opts: DemoOptions, index: int, code: str, config_root: Path) -> list[str]:
    """The argv of child ``index``: 0 hosts; the others join by ``code``, the host's join code
    (``host_join_code``): they go to its address and accept only its key, so that two demos
    on one machine, even with the same seed, never join each other's game."""
    peer_dir = opts.log_dir / f"peer-{index}"
    common = [
        "--bind", DEMO_ADDRESS,
        "--bot", opts.bot,
        "--progress-json",
        "--name", f"bot-{index}",
        "--log-dir", str(peer_dir),
        "--config-dir", str(config_root / f"peer-{index}"),
        "--lang", opts.lang,
        "--timeout", str(opts.timeout_s),
    ]
    if opts.seed is not None:
        common += ["--seed", peer_seed(opts.seed, index)]
    common += fault_args(opts, index)
    if index == 0:
        role = ["host", "--seats", str(opts.peers), "--edition", opts.edition,
                "--on-drop", opts.on_drop, "--drop-timeout", str(opts.drop_timeout)]
        if opts.timed is not None:
            role += ["--timed", repr(opts.timed)]
        role += [flag for flag, on in (("--free-parking-pot", opts.free_parking_pot),
                                       ("--no-auctions", opts.no_auctions), ("--double-go", opts.double_go)) if on]
    else:
        role = ["join", "--code", code]
    return [opts.python, "-m", "ui.cli", *role, *common]


def earlier_game_logs(log_dir: Path) -> list[Path]:
    """The game logs an earlier demo left in ``log_dir`` (``peer-<i>/game-*.log``), sorted.

    A demo refuses such a directory: with the same seed the game and its log names are the
    same, and a log is never overwritten (it is created exclusively, protocol.md §C6).
    """
    if not log_dir.is_dir():
        return []
    return sorted(log_dir.glob("peer-*/game-*.log"))


def group_hashes(peers: list[PeerStatus]) -> dict[str, list[int]]:
    """{final hash hex: [peer indices]} over the peers that reported ``done``, sorted by index."""
    groups: dict[str, list[int]] = {}
    for p in peers:
        if p.done is not None:
            groups.setdefault(str(p.done.get("final_state_hash")), []).append(p.index)
    return groups


def stderr_tail(status: PeerStatus, lines: int = STDERR_TAIL_LINES) -> list[str]:
    """The last ``lines`` lines of a child's stderr file ([] if none)."""
    if status.stderr_path is None or not status.stderr_path.exists():
        return []
    text = status.stderr_path.read_text(encoding="utf-8", errors="replace")
    return text.splitlines()[-lines:]


async def _read_lines(
    proc: asyncio.subprocess.Process, status: PeerStatus, t0: float, on_update: Callable[[], None]
) -> None:
    """Read one child's stdout until EOF, updating ``status`` from each JSON line."""
    assert proc.stdout is not None
    while True:
        try:
            raw = await proc.stdout.readline()
        except ValueError:  # line longer than the stream limit: drop it, keep reading
            status.garbage_lines += 1
            continue
        if not raw:
            return
        try:
            msg = json.loads(raw)
        except ValueError:
            status.garbage_lines += 1
            continue
        if not isinstance(msg, dict):
            status.garbage_lines += 1
            continue
        now = time.monotonic() - t0
        kind = msg.get("type")
        if kind == "hosting":
            status.hosting = msg
        elif kind == "found":
            status.found, status.found_at = msg, now
        elif kind == "progress":
            if status.first_progress_at is None:
                status.first_progress_at, status.first_progress_step = now, msg.get("step")
            status.progress = msg
            if status.waiting is not None and msg.get("step", -1) != status.waiting.get("step"):
                status.waiting = None
        elif kind == "waiting":
            status.waiting = msg
        elif kind in NOTICE_TYPES:
            status.notices.append(msg)
        elif kind == "done":
            status.done, status.done_at = msg, now
        elif kind == "error":
            status.error = msg
        else:
            status.garbage_lines += 1
            continue
        on_update()


async def _stop(procs: list[asyncio.subprocess.Process]) -> None:
    """SIGTERM every child still running, SIGKILL those that outlive ``KILL_GRACE_S``."""
    running = [p for p in procs if p.returncode is None]
    for p in running:
        try:
            p.terminate()
        except ProcessLookupError:
            pass
    if not running:
        return
    _, pending = await asyncio.wait([asyncio.ensure_future(p.wait()) for p in running], timeout=KILL_GRACE_S)
    for p in running:
        if p.returncode is None:
            try:
                p.kill()
            except ProcessLookupError:
                pass
    for p in running:
        await p.wait()
    for fut in pending:
        fut.cancel()


#: (options, peer index, host's join code or "" for the host, config root) -> argv.
CommandFactory = Callable[[DemoOptions, int, str, Path], list[str]]


async def run_demo(
    opts: DemoOptions,
    config_root: Path,
    on_update: Callable[[list[PeerStatus]], None],
    command: CommandFactory = child_command,
) -> DemoOutcome:
    """Start the children, follow them to the end, return the outcome.

    ``config_root``: a private directory for the children's identities (one subdirectory
    each). ``on_update(peers)`` is called after every state change (the display redraws).
    ``command(opts, index, code, config_root)`` gives each child's argv (tests replace it);
    ``code`` is the host's join code for the joiners. Raises ``OSError`` if a child cannot be
    started or the host's key cannot be stored; ``CancelledError`` (Ctrl-C) propagates after
    every child has been reaped. A ``hosting`` line the join code cannot be made of fails the
    host (``PeerStatus.error``, code ``hosting``) and ends the demo.
    """
    opts.log_dir.mkdir(parents=True, exist_ok=True)
    peers = [PeerStatus(index=i) for i in range(opts.peers)]
    procs: list[asyncio.subprocess.Process] = []
    stderr_files = []
    followers: list[asyncio.Task] = []
    t0 = time.monotonic()
    deadline = t0 + opts.timeout_s
    timed_out = False
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    # Children must import this checkout's packages even when it is not installed.
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    changed = asyncio.Event()

    def notify() -> None:
        changed.set()
        on_update(peers)

    async def start(i: int, code: str) -> None:
        status = peers[i]
        (opts.log_dir / f"peer-{i}").mkdir(parents=True, exist_ok=True)
        status.stderr_path = opts.log_dir / f"peer-{i}" / "stderr.log"
        err = open(status.stderr_path, "wb")
        stderr_files.append(err)
        proc = await asyncio.create_subprocess_exec(
            *command(opts, i, code, config_root),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=err,
            env=env, limit=MAX_LINE,
        )
        procs.append(proc)
        status.pid = proc.pid

        async def follow() -> None:
            await _read_lines(proc, status, t0, notify)
            status.returncode = await proc.wait()
            notify()

        followers.append(asyncio.create_task(follow()))

    async def wait_until(condition: Callable[[], bool]) -> bool:
        """Wait for ``condition()`` or the deadline; False (timed out) or True."""
        while not condition():
            changed.clear()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            # asyncio.wait, not wait_for: Python 3.11's wait_for returns the inner result when a
            # cancellation (Ctrl-C, SIGTERM) arrives as the event is set, swallowing it, and the
            # demo then played on to the end and exited 0 (tests/e2e/test_host_join.py).
            waiter = asyncio.ensure_future(changed.wait())
            try:
                await asyncio.wait({waiter}, timeout=remaining)
            finally:
                waiter.cancel()
        return True

    def any_failed() -> bool:
        return any(p.failed for p in peers)

    host_key = host_public_key(opts, config_root)
    try:
        await start(0, "")
        notify()
        # Joiners need the host's address; a host that dies first ends the demo.
        if not await wait_until(lambda: peers[0].hosting is not None or any_failed()):
            timed_out = True
        elif not any_failed():
            try:
                code = host_join_code(peers[0].hosting, host_key)
            except (ValueError, KeyError, TypeError) as exc:
                code = None
                peers[0].error = {"type": "error", "code": "hosting", "message": f"bad hosting line: {exc}"}
            if code is not None:
                for i in range(1, opts.peers):
                    await start(i, code)
                if not await wait_until(lambda: all(p.returncode is not None for p in peers) or any_failed()):
                    timed_out = True
        # On a failure the game cannot finish with everyone: stop the rest at once.
    finally:
        await asyncio.shield(_stop(procs))
        for task in followers:
            task.cancel()
        for err in stderr_files:
            err.close()
        for status, proc in zip(peers, procs):
            status.returncode = proc.returncode
    groups = group_hashes(peers)
    all_done = all(p.done is not None and p.returncode == 0 for p in peers)
    agreed = next(iter(groups)) if all_done and len(groups) == 1 and not timed_out else None
    return DemoOutcome(peers, agreed, groups, timed_out, time.monotonic() - t0)
