"""Issue 9, "How it is checked": the seven attacks of the issue, each played against real peer
processes (``lanopoli host/join --progress-json`` and tests/e2e/hostile_peer.py) by a hostile
laptop on the LAN.

Every game runs inside a network namespace made by the test (tests/e2e/spoof.py ``Netns``: only
its own loopback), so the forged datagrams (raw socket, our own IPv4+UDP headers, a real peer's
source address and port) and the games' mDNS never leave it, and fixed seeds cannot collide
with anybody else's game. Where namespaces or raw sockets are impossible every test skips,
saying why.

Items (issue 9 text; 4 and 7 are in test_attacks_session.py): (1) one spoofed 22-byte pure ack with a fresh ``src_epoch`` cuts a channel
for good; (2) the same with 2 seats forks the game; (3) a stranger's SETUP_SIG kills a lobby;
(4) a cheater gets an honest player evicted; (5) a forged REJECT/STATUS from the host's address;
(6) niente: one seat frames an honest player with other hidden-leaf commitments; (7) a network
outage forks a 2-seat game. Tests never assert on timings: "at normal speed" is checked by the
peers' ``--timeout`` (today's failure is every peer timing out) and by the same final hash as a
clean game of the same seeds.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import msgpack
import pytest

import spoof
from e2e_support import ROOT
from p2p import wire

AVAILABLE, WHY_NOT = spoof.available()
pytestmark = pytest.mark.skipif(not AVAILABLE, reason=WHY_NOT)

HOSTILE = Path(__file__).with_name("hostile_peer.py")
PEER_S = 40  # each peer's --timeout: a game of these seeds takes a few seconds
#: --timeout of the honest joiners of a table that stops in the lobby: a joiner the cheater did not
#: lie to stops only at the setup deadline (SETUP_TIMEOUT 30 s + the host's grace; protocol.md
#: §C2.2), which raced PEER_S on a loaded machine (test 6 failed 2 of ~6 runs, session 15).
LOBBY_JOINER_S = 75
WAIT_S = 60  # budget of a wait in the test (process start-up included)
ADDR = "127.0.0.1"
ACCUSED = re.compile(r"\bseat (\d+) (?:at step \d+|sent|signed|revealed|withheld|equivocated)")


@pytest.fixture
def ns():
    """A fresh network namespace (lo up) for one test's peers and forged datagrams."""
    with spoof.Netns() as n:
        yield n


class Table:
    """The peers of one game in namespace ``ns``: ``procs`` in start order; ``seeds`` theirs."""

    def __init__(self, spawn, ns: spoof.Netns, root: Path, tag: str, joiner_s: int = PEER_S) -> None:
        self.spawn, self.ns, self.root, self.tag = spawn, ns, root, tag
        self.joiner_s = joiner_s  # the --timeout of cli_join's peers (the others: PEER_S)
        self.procs: list = []
        self.seeds: list[str] = []
        self.dirs: list[Path] = []
        self.gid: str | None = None
        self.host_addr: tuple[str, int] | None = None

    def _common(self, i: int, seed: str, timeout: int = PEER_S) -> list[str]:
        d = self.root / f"{self.tag}-peer-{i}"
        self.dirs.append(d)
        self.seeds.append(seed)
        return ["--seed", seed, "--log-dir", str(d), "--timeout", str(timeout)]

    def cli_host(self, seed: str, seats: int, *extra: str):
        i = len(self.procs)
        p = self.spawn("host", "--bind", ADDR, "--progress-json", "--seats", str(seats),
                       "--config-dir", str(self.root / f"{self.tag}-k{i}"), *self._common(i, seed), *extra,
                       prefix=self.ns.prefix())
        self.procs.append(p)
        self._hosting(p)
        return p

    def hostile_host(self, seed: str, seats: int, *extra: str):
        i = len(self.procs)
        p = self.spawn("--role", "host", "--seats", str(seats), *self._common(i, seed), *extra,
                       prefix=self.ns.prefix(), script=HOSTILE)
        self.procs.append(p)
        self._hosting(p)
        return p

    def _hosting(self, p) -> None:
        hosting = p.wait_for(lambda m: m["type"] == "hosting", WAIT_S)
        self.gid = hosting["game_id"]
        self.host_addr = (hosting["address"], hosting["port"])

    def cli_join(self, seed: str):
        i = len(self.procs)
        p = self.spawn("join", "--bind", ADDR, "--progress-json", "--game", self.gid,
                       "--config-dir", str(self.root / f"{self.tag}-k{i}"), *self._common(i, seed, self.joiner_s),
                       prefix=self.ns.prefix())
        self.procs.append(p)
        return p

    def hostile_join(self, seed: str, *extra: str):
        i = len(self.procs)
        p = self.spawn("--role", "join", "--host", f"{self.host_addr[0]}:{self.host_addr[1]}", "--game", self.gid,
                       *self._common(i, seed), *extra, prefix=self.ns.prefix(), script=HOSTILE)
        self.procs.append(p)
        return p

    def endpoints(self, i: int) -> list[tuple[str, int]]:
        """Every seat's (address, port), in seat order, from peer i's ``<log>.resume`` file
        (written when its game starts, protocol.md §N5)."""
        (res,) = self.dirs[i].glob("game-*.log.resume")
        return [(h, p) for h, p in json.loads(res.read_text())["endpoints"]]

    def finish(self) -> list[int]:
        return [p.finish(max(PEER_S, self.joiner_s) + 30) for p in self.procs]


def done_of(p) -> dict | None:
    d = p.of_type("done")
    return d[-1] if d else None


def verify_json(log: str | Path) -> dict:
    proc = subprocess.run([sys.executable, "-m", "ui.cli", "--lang", "en", "verify", str(log), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    return json.loads(proc.stdout)


def seeds(tag: str, n: int) -> list[str]:
    """Fixed per-test seeds (the namespace isolates the game ids they give)."""
    return [f"attack-{tag}-{i}" for i in range(n)]


def held_game(spawn, ns, root: Path, tag: str, seats: int, release: Path, *, drop_timeout: int = 30,
              run: str = "attacked"):
    """Host (CLI) + seats-2 CLI joiners + one held joiner (hostile_peer, honest) holding step >= 10
    until ``release`` exists; seeds from ``tag``, files under ``run``. Returns the Table (the held
    peer is last)."""
    s = seeds(tag, seats)
    t = Table(spawn, ns, root, f"{tag}-{run}")
    t.cli_host(s[0], seats, "--drop-timeout", str(drop_timeout))
    for i in range(1, seats - 1):
        t.cli_join(s[i])
    t.hostile_join(s[-1], "--hold-at", "10", "--release", str(release))
    return t


def clean_hash(spawn, ns, root: Path, tag: str, seats: int) -> str:
    """The final state hash of the same table without an attacker (release already there)."""
    release = root / f"{tag}-clean-release"
    release.touch()
    t = held_game(spawn, ns, root, tag, seats, release, run="clean")
    assert t.finish() == [0] * seats, [p.stderr[-5:] for p in t.procs]
    hashes = {done_of(p)["final_state_hash"] for p in t.procs}
    assert len(hashes) == 1
    return hashes.pop()


# -- (1), (2): a spoofed pure ack with a fresh epoch ------------------------------------------


def spoof_fresh_epochs(ns, eps: list[tuple[str, int]]) -> int:
    """One forged 22-byte pure ack with a fresh src_epoch per ordered pair of seats, from the
    real source address and port of the first to the second. Returns how many were sent."""
    with spoof.Spoofer(ns.name) as sp:
        for a, src in enumerate(eps):
            for b, dst in enumerate(eps):
                if a != b:
                    sp.send(src, dst, spoof.pure_ack(0x5EED0000 + 16 * a + b))
        return sp.sent


def test_1_spoofed_pure_ack_with_a_fresh_epoch_only_delays_the_game(spawn, ns, tmp_path):
    clean = clean_hash(spawn, ns, tmp_path, "pa3", 3)
    release = tmp_path / "release"
    t = held_game(spawn, ns, tmp_path, "pa3", 3, release)
    t.procs[-1].wait_for(lambda m: m["type"] == "holding", WAIT_S)
    assert spoof_fresh_epochs(ns, t.endpoints(2)) == 6
    release.touch()
    codes = t.finish()
    assert codes == [0, 0, 0], [p.of_type("error") for p in t.procs]
    assert {done_of(p)["final_state_hash"] for p in t.procs} == {clean}


def test_2_spoofed_pure_ack_does_not_fork_a_two_seat_game(spawn, ns, tmp_path):
    release = tmp_path / "release"
    t = held_game(spawn, ns, tmp_path, "pa2", 2, release, drop_timeout=2)
    t.procs[-1].wait_for(lambda m: m["type"] == "holding", WAIT_S)
    spoof_fresh_epochs(ns, t.endpoints(1))
    release.touch()
    t.finish()
    assert_no_fork(t.procs)


def assert_no_fork(procs) -> None:
    """Never two different outcomes: every peer that says it finished reports the same final
    hash, and no two logs verify as complete games with different final hashes."""
    finished = {done_of(p)["final_state_hash"] for p in procs if done_of(p) is not None}
    assert len(finished) <= 1, f"forked: {finished}"
    logs = [d["log"] for p in procs if (d := done_of(p)) is not None]
    complete = {v["final_state_hash"] for v in map(verify_json, logs) if v.get("complete")}
    assert len(complete) <= 1, f"two complete logs disagree: {complete}"


# -- (3), (5): the lobby --------------------------------------------------------------------------


def stranger_setup_sig(gid: bytes, seat: int, hidden: bool = False) -> bytes:
    """A SETUP_SIG (protocol.md §C2.1) of nobody: the game id, a random setup hash, an all-zero
    signature."""
    fields = [gid, seat, os.urandom(32)]
    if hidden:
        fields.append(os.urandom(32))
    return msgpack.packb([wire.MSG_SETUP_SIG, msgpack.packb(fields, use_bin_type=True), bytes(64)],
                         use_bin_type=True)


def test_3_a_strangers_setup_sig_does_not_kill_the_lobby(spawn, ns, tmp_path):
    s = seeds("ss", 3)
    t = Table(spawn, ns, tmp_path, "ss")
    t.cli_host(s[0], 3)
    with spoof.Sniffer(ns.name) as sniff:
        t.cli_join(s[1])
        src, _dst, _ = sniff.wait_for(lambda src, dst, _p: dst == t.host_addr, WAIT_S)  # its JOIN
        gid = bytes.fromhex(t.gid)
        with spoof.Spoofer(ns.name) as sp:
            for seat in range(3):
                for to in (t.host_addr, src):  # from any port: a stranger's own
                    sp.send((ADDR, 40000 + seat), to,
                            spoof.transport_datagram(0x57A0 + seat, 0, stranger_setup_sig(gid, seat)))
    t.cli_join(s[2])
    codes = t.finish()
    assert codes == [0, 0, 0], [p.of_type("error") for p in t.procs]
    assert len({done_of(p)["final_state_hash"] for p in t.procs}) == 1


def forged_lobby_message(kind: str, gid: bytes) -> bytes:
    """An unsigned (all-zero signature) REJECT with text of our choosing, or a STATUS."""
    if kind == "reject":
        mtype, fields = wire.MSG_REJECT, [gid, "lobby full. Re-join at http://evil.example"]
    else:
        mtype, fields = wire.MSG_STATUS, [gid, "classico", 3, 1, ["evil"]]
    return msgpack.packb([mtype, msgpack.packb(fields, use_bin_type=True), bytes(64)], use_bin_type=True)


@pytest.mark.parametrize("kind", ["reject", "status"])
def test_5_a_forged_reject_or_status_from_the_hosts_address_is_ignored(spawn, ns, tmp_path, kind):
    s = seeds(f"rj{kind}", 3)
    t = Table(spawn, ns, tmp_path, f"rj{kind}")
    t.cli_host(s[0], 3)
    with spoof.Sniffer(ns.name) as sniff:
        t.cli_join(s[1])
        joiner, _, _ = sniff.wait_for(lambda src, dst, _p: dst == t.host_addr, WAIT_S)
        sniff.wait_for(lambda src, dst, p: src == t.host_addr and dst == joiner and len(p) > 22, WAIT_S)  # STATUS
    with spoof.Spoofer(ns.name) as sp:
        sp.send(t.host_addr, joiner,
                spoof.transport_datagram(0xE71, 0, forged_lobby_message(kind, bytes.fromhex(t.gid))))
    time.sleep(0.5)  # let it be handled before the lobby fills
    t.cli_join(s[2])
    codes = t.finish()
    assert codes == [0, 0, 0], [p.of_type("error") for p in t.procs]
    assert len({done_of(p)["final_state_hash"] for p in t.procs}) == 1
    assert not any("evil" in line for p in t.procs for line in p.stderr)


# -- (6): a seat that shows one victim other commitments ----------------------------------------------------------------------


def culprits(message: str) -> set[int]:
    """The seats an error message accuses: "... commitments of seats [i, j] ..." (a seat showed
    different leaves, protocol.md §C12.2), else the subject of "seat N <verb>"."""
    listed = re.search(r"commitments of seats \[([\d, ]*)\]", message)
    if listed:
        return {int(x) for x in re.findall(r"\d+", listed.group(1))}
    return {int(x) for x in ACCUSED.findall(message)}


def test_6_niente_other_leaves_for_one_victim_are_caught_at_setup(spawn, ns, tmp_path):
    """The cheater (the host) signs a SETUP_SIG with junk leaves for one victim only. Caught at
    setup: no honest peer starts the game, each stops in the lobby naming the cheater's seat,
    and nobody is dropped."""
    s = seeds("leaves", 3)
    t = Table(spawn, ns, tmp_path, "leaves", joiner_s=LOBBY_JOINER_S)
    t.hostile_host(s[0], 3, "--edition", "niente-e-come-sembra", "--attack", "junk-leaves")
    t.cli_join(s[1])
    t.cli_join(s[2])
    for p in t.procs[1:]:  # the honest joiners stop in the lobby (seconds)
        p.finish(LOBBY_JOINER_S + 30)
    cheater = t.procs[0]
    cheater.proc.terminate()  # the cheater would wait for its --timeout (PEER_S): 40 s of the suite
    cheater.finish(30)
    attack = cheater.wait_for(lambda m: m["type"] == "attack", 1)
    # Seats from the keys (players are ordered by public key, protocol.md §C2.2).
    from p2p.identity import Identity

    keys = [Identity.from_seed(x.encode()).public_key for x in s]
    seat_of = {i: sorted(keys).index(k) for i, k in enumerate(keys)}
    cheat_seat = seat_of[0]
    assert attack["victim"] != cheat_seat
    for p in t.procs[1:]:
        assert not p.of_type("found"), "the game started: the different leaves were not caught at setup"
        (err,) = p.of_type("error")
        assert err["code"] == "lobby" and culprits(err["message"]) == {cheat_seat}, err
        assert not p.of_type("seat_dropped") and not p.of_type("drop_vote")


# -- the hostile laptop replays what it captured ------------------------------------------------------


def test_replayed_datagrams_of_the_running_game_change_nothing(spawn, ns, tmp_path):
    """Everything captured on the LAN up to a held step, replayed three times from the same
    source address:port to the same destination (valid MACs: they are the peers' own datagrams,
    protocol.md §N2.2 "What holds"), then the game goes on: same final hash as a clean game."""
    clean = clean_hash(spawn, ns, tmp_path, "rp3", 3)
    release = tmp_path / "release"
    with spoof.Sniffer(ns.name) as sniff:
        t = held_game(spawn, ns, tmp_path, "rp3", 3, release)
        t.procs[-1].wait_for(lambda m: m["type"] == "holding", WAIT_S)
        time.sleep(0.3)
        captured = [(s, d, p) for s, d, p in sniff.captured if 5353 not in (s[1], d[1])]
    assert len(captured) > 30
    with spoof.Spoofer(ns.name) as sp:
        for _ in range(3):
            for src, dst, payload in captured:
                sp.send(src, dst, payload)
    release.touch()
    assert t.finish() == [0, 0, 0], [p.of_type("error") for p in t.procs]
    assert {done_of(p)["final_state_hash"] for p in t.procs} == {clean}
