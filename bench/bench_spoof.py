#!/usr/bin/env python3
"""Spoofing benchmark (issue 9): a stranger sends ~1,000 forged datagrams per second through a
whole 4-peer game; prints the game time against a clean run of the same seeds and checks the
final hash (prints, asserts nothing; exit 1 if the hashes differ or a game fails).

    sudo python bench/bench_spoof.py [--peers 4] [--runs 3] [--rate 1000] [--seed bench-spoof] [--join code]

Needs root: every game runs inside a network namespace made for it (tests/e2e/spoof.py
``Netns``: only its own loopback), and the forged datagrams leave a raw socket there with our
own IPv4/UDP headers, so they carry the real peers' source addresses and ports. Nothing touches
the machine's own namespace.

Per run: one clean game, then one attacked game, of ``lanopoli host``/``join --progress-json``
peers with the same seeds (hence the same setup and the same final state hash); the joiners go
to the host by its join code (``--join code``, the path of ``lanopoli play`` and ``demo``: the
host's address and key, protocol.md §N3.1) or find it by game id over mDNS (``--join game``, the
path before H78). Game time:
from the first ``progress`` line of any peer to the last ``done`` line, as the parent receives
them (start-up, discovery and the lobby are not counted, as in bench/bench_network.py). The
attacker learns the peers' addresses and ports by watching the namespace's loopback
(``spoof.Sniffer``) and, from the first datagram it sees to the end of the game, sends
``--rate`` datagrams per second, cycling through every kind (protocol.md §N2, §C1):

* transport: 22-byte pure acks with a fresh ``src_epoch`` (0xB1), plain DATA chunks with random
  seqs, ``0xB2`` datagrams with random tags, ``0xB3`` introductions with random X25519 keys,
  CHALLENGE/RESPONSE probes, and replays of real datagrams captured a moment earlier;
* every lobby and session message type (JOIN, STATUS, REJECT, LEAVE, PROPOSAL, SETUP_SIG, SEED,
  STEP, ESCROW, DROP, CATCHUP_REQ, CATCHUP_RESP, HINT, ALIVE) with the game id, plausible seats
  and steps (around the peers' current step) and an all-zero or random signature, in plain
  DATA datagrams;

each from a real peer's address:port to another real peer. Target: attacked / clean <= 1.1,
same final hash. Then one JSON line with the figures.
"""

from __future__ import annotations

import argparse
import itertools
import json
import queue
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

import msgpack  # noqa: E402

import spoof  # noqa: E402
from conftest import PeerProc  # noqa: E402
from p2p.identity import Identity  # noqa: E402
from ui.demo import host_join_code  # noqa: E402
from p2p import transport, wire  # noqa: E402

TARGET_RATIO = 1.1
PEER_S = 120
MDNS_PORT = 5353
REPLAY_POOL = 300  # real datagrams kept for replays


class StampedQueue(queue.Queue):
    """Stamps every JSON line (dict) with the parent's arrival time, key ``_t``."""

    def put(self, item, block=True, timeout=None):  # noqa: ANN001 - queue.Queue's signature
        if isinstance(item, dict):
            item["_t"] = time.monotonic()
        super().put(item, block, timeout)


class TimedPeer(PeerProc):
    """A peer process whose JSON lines carry their arrival time (``_t``)."""

    queue_class = StampedQueue


def env_bytes(mtype: int, fields: list, rng: random.Random) -> bytes:
    """An envelope (protocol.md §C1) of ``fields`` with a signature nobody made."""
    sig = bytes(64) if rng.random() < 0.5 else rng.randbytes(64)
    return msgpack.packb([mtype, msgpack.packb(fields, use_bin_type=True), sig], use_bin_type=True)


def forged_message(kind: int, gid: bytes, step: int, seats: int, rng: random.Random) -> bytes:
    """One lobby or session message of type ``kind`` with plausible fields."""
    seat, h = rng.randrange(seats), (lambda: rng.randbytes(32))
    player = [h(), h(), "evil", h(), h(), True]
    fields = {
        wire.MSG_JOIN: [gid, 1, player],
        wire.MSG_STATUS: [gid, "classico", seats, seats, ["evil"] * seats],
        wire.MSG_REJECT: [gid, "lobby full: re-join at http://evil.example"],
        wire.MSG_LEAVE: [gid],
        wire.MSG_PROPOSAL: [gid, msgpack.packb([1, gid, "classico", seats, 65536, [], [player] * seats],
                                               use_bin_type=True), [["127.0.0.1", 1]] * seats],
        wire.MSG_SETUP_SIG: [gid, seat, h()],
        wire.MSG_SEED: [gid, seat, h(), h()],
        wire.MSG_STEP: [gid, step, seat, h(), h(), rng.choice([None, h(), [1]])],
        wire.MSG_ESCROW: [gid, seat, 0, [[(seat + 1) % seats, h(), rng.randbytes(48)]]],
        wire.MSG_DROP: [gid, seat, step, (seat + 1) % seats, 0, rng.choice([None, h()])],
        wire.MSG_CATCHUP_REQ: [gid, seat, max(0, step - 5), step + 1],
        wire.MSG_CATCHUP_RESP: [gid, seat, max(0, step - 1), step + 1, [], [], []],
        wire.MSG_HINT: [gid, seat, step + rng.randrange(1, 50)],
        wire.MSG_ALIVE: [gid, seat, step, 0],
    }[kind]
    return env_bytes(kind, fields, rng)


MESSAGE_KINDS = (wire.MSG_JOIN, wire.MSG_STATUS, wire.MSG_REJECT, wire.MSG_LEAVE, wire.MSG_PROPOSAL,
                 wire.MSG_SETUP_SIG, wire.MSG_SEED, wire.MSG_STEP, wire.MSG_ESCROW, wire.MSG_DROP,
                 wire.MSG_CATCHUP_REQ, wire.MSG_CATCHUP_RESP, wire.MSG_HINT, wire.MSG_ALIVE)
TRANSPORT_KINDS = ("pure_ack", "data", "auth", "intro", "challenge", "response", "replay")


def transport_junk(kind: str, rng: random.Random, captured: list) -> bytes | None:
    """A forged transport datagram of ``kind`` (protocol.md §N2); None if nothing to replay yet."""
    H = transport.HEADER
    epoch = rng.randrange(1, 2**32)
    if kind == "pure_ack":
        return spoof.pure_ack(epoch, ack=rng.randrange(0, 4))
    if kind == "data":
        return spoof.transport_datagram(epoch, rng.randrange(0, 300), rng.randbytes(rng.randrange(1, 200)))
    magic_auth = getattr(transport, "MAGIC_AUTH", 0xB2)
    magic_intro = getattr(transport, "MAGIC_INTRO", 0xB3)
    if kind == "auth":
        return H.pack(magic_auth, transport.FLAG_DATA, epoch, rng.randrange(0, 2**32), rng.randrange(0, 300),
                      0, 0) + rng.randbytes(rng.randrange(1, 200)) + rng.randbytes(16)
    if kind == "intro":
        return H.pack(magic_intro, transport.FLAG_DATA, epoch, 0, 0, 0, 0) + rng.randbytes(32) + \
            rng.randbytes(40) + rng.randbytes(16)
    if kind in ("challenge", "response"):
        flag = getattr(transport, "FLAG_CHALLENGE" if kind == "challenge" else "FLAG_RESPONSE", 0)
        return H.pack(magic_auth, flag, epoch, rng.randrange(0, 2**32), rng.randrange(1, 2**32), 0, 0) + \
            rng.randbytes(16)
    if not captured:
        return None
    return rng.choice(captured[-REPLAY_POOL:])[2]


class Attacker:
    """Sends ``rate`` forged datagrams per second among ``peers`` until ``stop``; counts them."""

    def __init__(self, ns: spoof.Netns, sniffer: spoof.Sniffer, gid: bytes, seats: int, rate: int,
                 seed: int) -> None:
        self.ns, self.sniffer, self.gid, self.seats, self.rate = ns, sniffer, gid, seats, rate
        self.rng = random.Random(seed)
        self.step = 0  # the peers' step, as last reported (plausible steps around it)
        self._peers: list | None = None  # every seat's address, once known
        self._pool: list = []  # captured real datagrams to replay
        self.sent = 0
        self.seconds = 0.0  # how long it has been sending
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="attacker")

    def peers(self) -> list[tuple[str, int]]:
        """The peers' addresses seen so far. Once every seat is known and a pool of real
        datagrams to replay is captured, the sniffer is closed (it would cost us CPU that the
        peers on this 2-core machine need, and skew the ratio)."""
        if self._peers is None:
            found = sorted({a for s, d, _ in self.sniffer.captured for a in (s, d) if a[1] != MDNS_PORT})
            if len(found) < self.seats or len(self.sniffer.captured) < REPLAY_POOL:
                return found
            self._pool = list(self.sniffer.captured[-REPLAY_POOL:])
            self.sniffer.close()
            self._peers = found
        return self._peers

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        rng = self.rng
        kinds = itertools.cycle([("t", k) for k in TRANSPORT_KINDS] + [("m", k) for k in MESSAGE_KINDS])
        with spoof.Spoofer(self.ns.name) as sp:
            t0 = time.monotonic()
            while not self._stop.is_set():
                peers = self.peers()
                if len(peers) < 2:
                    t0 = time.monotonic()  # the rate counts from the first two peers seen
                self.seconds = time.monotonic() - t0
                due = int(self.seconds * self.rate) - self.sent
                if len(peers) < 2 or due <= 0:
                    time.sleep(0.002)
                    continue
                for _ in range(min(due, 50)):
                    src, dst = rng.sample(peers, 2)
                    layer, kind = next(kinds)
                    if layer == "t":
                        data = transport_junk(kind, rng, self._pool or self.sniffer.captured)
                        if data is None:
                            continue
                    else:
                        step = max(0, self.step + rng.randrange(-2, 3))
                        data = spoof.transport_datagram(rng.randrange(1, 2**32), rng.randrange(0, 4),
                                                        forged_message(kind, self.gid, step, self.seats, rng))
                    sp.send(src, dst, data)
                    self.sent += 1


def play(ns: spoof.Netns, root: Path, seed: str, peers: int, rate: int, join: str = "code") -> dict:
    """One game of ``peers`` CLI peers in ``ns``; with ``rate`` > 0 under attack; the joiners
    ``join`` by the host's join code ("code") or by game id over mDNS ("game"). Figures."""
    procs: list[TimedPeer] = []
    cpu0 = time.process_time()
    common = ["--bind", "127.0.0.1", "--progress-json", "--timeout", str(PEER_S)]
    sniffer = spoof.Sniffer(ns.name) if rate else None
    attacker = None
    try:
        host = TimedPeer(["host", "--seats", str(peers), "--seed", f"{seed}-0", "--log-dir", str(root / "p0"),
                          *common], ns.prefix())
        procs.append(host)
        hosting = host.wait_for(lambda m: m["type"] == "hosting", 60)
        gid = hosting["game_id"]
        # By the host's join code (address + its key, as `lanopoli demo` since H78), or by game id.
        where = ["--code", host_join_code(hosting, Identity.from_seed(f"{seed}-0".encode("utf-8")).public_key)] \
            if join == "code" else ["--game", gid]
        if rate:
            attacker = Attacker(ns, sniffer, bytes.fromhex(gid), peers, rate, seed=len(seed))
            attacker.start()
        for i in range(1, peers):
            procs.append(TimedPeer(["join", *where, "--seed", f"{seed}-{i}", "--log-dir", str(root / f"p{i}"),
                                    *common], ns.prefix()))
        while any(p.proc.poll() is None for p in procs):
            if attacker is not None:
                steps = [m["step"] for p in procs for m in p.of_type("progress")[-1:]]
                attacker.step = max(steps, default=0)
            time.sleep(0.05)
        codes = [p.finish(30) for p in procs]
    finally:
        if attacker is not None:
            attacker.stop()
        if sniffer is not None:
            sniffer.close()
        for p in procs:
            if p.proc.poll() is None:
                p.proc.kill()
                p.proc.wait()
    dones = [p.of_type("done")[-1] if p.of_type("done") else None for p in procs]
    firsts = [m["_t"] for p in procs for m in p.of_type("progress")[:1]]
    ok = all(c == 0 for c in codes) and all(d is not None for d in dones)
    out = {"ok": ok, "codes": codes, "sent": attacker.sent if attacker else 0,
           "attack_s": attacker.seconds if attacker else 0.0,
           "our_cpu_s": time.process_time() - cpu0,  # the attacker's (and readers') own CPU
           "hashes": sorted({d["final_state_hash"] for d in dones if d}),
           "steps": max((d["steps"] for d in dones if d), default=0),
           "errors": [m for p in procs for m in p.of_type("error")]}
    if ok and firsts:
        out["game_s"] = max(d["_t"] for d in dones) - min(firsts)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peers", type=int, default=4)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rate", type=int, default=1000, help="forged datagrams per second")
    ap.add_argument("--seed", default="bench-spoof")
    ap.add_argument("--join", choices=("code", "game"), default="code",
                    help="joiners go to the host by its join code (default) or find it by game id over mDNS")
    args = ap.parse_args(argv)
    ok, why = spoof.available()
    if not ok:
        print(f"cannot run: {why}")
        return 2
    clean_s, attacked_s, sent, same, failed = [], [], 0, True, False
    with tempfile.TemporaryDirectory(prefix="bench-spoof-") as tmp:
        for r in range(args.runs):
            with spoof.Netns("bsp") as ns:  # a fresh namespace per game: no leftover mDNS records
                clean = play(ns, Path(tmp) / f"clean-{r}", args.seed, args.peers, 0, args.join)
            with spoof.Netns("bsp") as ns:
                hit = play(ns, Path(tmp) / f"attacked-{r}", args.seed, args.peers, args.rate, args.join)
            rate = hit["sent"] / hit["attack_s"] if hit["attack_s"] else 0.0
            print(f"run {r}: clean {clean.get('game_s', float('nan')):.2f} s ({clean['steps']} steps), "
                  f"attacked {hit.get('game_s', float('nan')):.2f} s ({hit['steps']} steps), "
                  f"{hit['sent']} forged datagrams in {hit['attack_s']:.1f} s (~{rate:.0f}/s, lobby included; "
                  f"attacker CPU {hit['our_cpu_s']:.1f} s vs {clean['our_cpu_s']:.1f} s clean), "
                  f"hashes {'equal' if clean['hashes'] == hit['hashes'] and len(hit['hashes']) == 1 else 'DIFFER'}")
            if not (clean["ok"] and hit["ok"]):
                failed = True
                print(f"  failed: clean {clean['codes']} {clean['errors'][:2]}; attacked {hit['codes']} {hit['errors'][:2]}")
                continue
            same = same and clean["hashes"] == hit["hashes"] and len(hit["hashes"]) == 1
            clean_s.append(clean["game_s"])
            attacked_s.append(hit["game_s"])
            sent += hit["sent"]
    if not clean_s:
        print("no complete pair of games")
        return 1
    ratio = statistics.median(attacked_s) / statistics.median(clean_s)
    print(f"game time attacked / clean (medians): {ratio:.2f} (target <= {TARGET_RATIO}); "
          f"final hash {'the same' if same else 'DIFFERENT'}")
    print(json.dumps({"peers": args.peers, "runs": args.runs, "rate": args.rate, "join": args.join, "clean_s": clean_s,
                      "attacked_s": attacked_s, "forged": sent, "ratio": round(ratio, 3), "same_hash": same}))
    return 0 if same and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
