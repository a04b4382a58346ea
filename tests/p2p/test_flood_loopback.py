"""A real 2-peer game on loopback while a stranger floods both sockets (protocol.md §N2.1,
§N2.2, §C2.2): plain pure acks with fresh epochs, forged authenticated datagrams, introductions
with fresh keys, and plain datagrams carrying forged lobby messages of every type. The game
ends with the same final state hash as without the flood; the junk is dropped and counted.

(A stranger here cannot forge the peers' source addresses — that needs a raw socket in a
network namespace, tests/e2e/test_attacks*.py — so this checks the keyed channels' indifference
and the lobby's checks through the real node, cheaply.)"""

from __future__ import annotations

import asyncio
import os
import random
import socket

from p2p.node import PeerConfig, run_peer
from p2p.transport import HEADER, MAGIC, MAGIC_AUTH, MAGIC_INTRO
from p2p.wire import MSG_JOIN, MSG_LEAVE, MSG_PROPOSAL, MSG_REJECT, MSG_SEED, MSG_SETUP_SIG, MSG_STATUS, pack
from ui.progress import progress_json

SEED = b"flood-loopback"


def junk_datagrams(gid: bytes, rng: random.Random) -> list[bytes]:
    """One of each kind of junk (fields plausible, nothing signed or MACed by a peer)."""
    envs = [pack([t, pack([gid, *([0] * k)]), bytes(64)]) for t, k in (
        (MSG_JOIN, 2), (MSG_STATUS, 6), (MSG_REJECT, 4), (MSG_LEAVE, 0), (MSG_PROPOSAL, 2),
        (MSG_SETUP_SIG, 2), (MSG_SEED, 3))]
    epoch = rng.getrandbits(32) or 1
    out = [HEADER.pack(MAGIC, 0, epoch, 0, 0, 0, 0),  # the 22-byte pure ack of issue 9 item 1
           HEADER.pack(MAGIC_AUTH, 1, epoch, rng.getrandbits(32), 0, 0, 0) + b"x" * 40 + os.urandom(16),
           HEADER.pack(MAGIC_INTRO, 1, epoch, 0, 0, 0, 0) + os.urandom(32) + b"JOIN" + os.urandom(16)]
    out += [HEADER.pack(MAGIC, 1, epoch, 0, 0, 0, 0) + e for e in envs]
    return out


def fresh_intro(rng: random.Random) -> bytes:
    """An introduction offering a fresh X25519 key (random bytes: the host derives it, then the
    MAC fails): what takes the introduction budget (protocol.md §N2.1 item 3)."""
    return HEADER.pack(MAGIC_INTRO, 1, rng.getrandbits(32) or 1, 0, 0, 0, 0) + os.urandom(32) + b"JOIN" + os.urandom(16)


async def game(flood: bool, sockets: int = 0, ip: str = "127.0.0.1", head_start: float = 0.0) -> tuple:
    """One 2-peer game; ``flood``: a stranger's socket on 127.0.0.1 sends every kind of junk;
    ``sockets``: that many more of the stranger's sockets, on ``ip``, send fresh-key introductions;
    the joiner starts ``head_start`` seconds after the flood (its introduction then finds the
    budget as the flood left it, not the full burst)."""
    loop = asyncio.get_running_loop()
    hosting = loop.create_future()

    def on_progress(report: object) -> None:
        m = progress_json(report)  # the node reports records; ui writes them as lines
        if m["type"] == "hosting" and not hosting.done():
            hosting.set_result(m)

    host = PeerConfig(role="host", seats=2, demo_seed=SEED + b"-0", timeout=60, chain_length=4096,
                      progress=on_progress)
    host_task = asyncio.ensure_future(run_peer(host))
    h = await hosting
    gid = bytes.fromhex(h["game_id"])
    joiner = PeerConfig(role="join", demo_seed=SEED + b"-1", game_id=gid, timeout=60, chain_length=4096)
    join_task = asyncio.ensure_future(run_peer(joiner)) if not head_start else None
    start = loop.time()
    sent = 0
    if flood:
        rng = random.Random(1)
        socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(1 + sockets)]
        for k, sock in enumerate(socks):
            sock.bind(("127.0.0.1" if k == 0 else ip, 0))
            sock.setblocking(False)
        try:
            while join_task is None or not (host_task.done() and join_task.done()):
                if join_task is None and loop.time() - start >= head_start:
                    join_task = asyncio.ensure_future(run_peer(joiner))
                for sock, d in [(socks[0], d) for d in junk_datagrams(gid, rng)] + [
                        (s, fresh_intro(rng)) for s in socks[1:]]:
                    try:
                        sock.sendto(d, (h["address"], h["port"]))
                        sent += 1
                    except BlockingIOError:
                        pass
                await asyncio.sleep(0.001)
        finally:
            for sock in socks:
                sock.close()
    r_host, r_join = await asyncio.gather(host_task, join_task)
    return r_host, r_join, sent


def test_a_flooded_game_ends_like_a_clean_one():
    clean_host, clean_join, _ = asyncio.run(game(False))
    host, join, sent = asyncio.run(game(True))
    assert host.final_state_hash == join.final_state_hash == clean_host.final_state_hash
    assert host.steps == clean_host.steps
    assert sent > 1000
    t = host.transport
    junk_dropped = (t["unknown_dropped"] + t["intro_dropped"] + t["malformed"] + t["unauthenticated"]
                    + t["bad_mac"])
    assert junk_dropped > 0 and t["peer_restarts"] == 0


def test_a_game_flooded_from_many_sockets_of_one_machine_ends_like_a_clean_one():
    """protocol.md §N2.1 item 3 (H88 review #9): the stranger also floods fresh-key introductions
    from 32 sockets of another loopback address, from 0.3 s before the joiner starts. With a
    bucket per (ip, port) alone those sockets took 32 x INTRO_ADDR_RATE, twice INTRO_RATE, and the
    joiner's introduction waited for a token; the bucket of their IP (INTRO_IP_RATE, a quarter of
    INTRO_RATE) leaves it one. Same game as a clean one."""
    clean_host, _, _ = asyncio.run(game(False))
    host, join, sent = asyncio.run(game(True, sockets=32, ip="127.0.0.3", head_start=0.3))
    assert host.final_state_hash == join.final_state_hash == clean_host.final_state_hash
    assert host.steps == clean_host.steps and sent > 1000
    assert host.transport["intro_limited"] > 0 and host.transport["peer_restarts"] == 0
