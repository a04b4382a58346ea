"""Red team, session 10 (H94): memory a stranger makes a lobby peer keep (protocol.md §N2.6 'Bounds':
strangers hold at most ~2.9 MiB of receive buffers; "Worst case: ~7 MB, against the 80 MB RSS
target").

``Node`` keeps the session messages that arrive before its own session starts (a peer that
started first) and hands them to the session when the game starts. Until H100's 4b0e1b9 it kept
``_MAX_EARLY`` = 256 payloads, any size, from any channel: in the lobby strangers may still open
channels (§N2.6 'Strangers'), so anyone on the LAN could fill that list with the largest payloads
the transport reassembles (~64 KiB), and the host kept them for as long as its lobby waited. Now
``p2p/early_buffer.py`` keeps them only from the setup's seats, bounded (§N2.6 'Early session
messages').

A whole host node on loopback (its socket on 127.0.0.1, zeroconf restricted to it, as in
tests/p2p/test_node.py); the stranger is a plain ``Endpoint`` on a socket of its own at
127.0.0.77. Memory is measured with ``tracemalloc`` in this process (the host's allocations
that stay after the stranger's payloads were delivered), never timed.
"""

from __future__ import annotations

import asyncio
import gc
import socket
import time
import tracemalloc

import fake_engine
from p2p.endpoint import Endpoint
from p2p.envelope import MSG_CATCHUP_RESP
from p2p.node import PeerConfig, run_peer
from p2p.node_reports import Hosting
from p2p.send_stream import BufferFull

#: Payloads the stranger sends and the size of each: session-tagged junk (a CATCHUP_RESP's tag).
N, SIZE = 300, 60_000
#: What a lobby host may keep for strangers: the transport's own stranger bound (~2.9 MiB) and
#: some slack, far below N x SIZE.
BOUND = 4 * 1024 * 1024
STRANGER = "127.0.0.77"


async def _stranger_fills_a_lobby_host(tmp_path) -> tuple[int, int]:
    """(bytes the host still holds once the stranger's payloads were all acknowledged, bytes
    the stranger delivered)."""
    where: asyncio.Future = asyncio.get_running_loop().create_future()

    def progress(report) -> None:
        if isinstance(report, Hosting) and not where.done():
            where.set_result((report.address, report.port))

    gc.collect()
    tracemalloc.start()
    host = asyncio.ensure_future(run_peer(PeerConfig(
        role="host", seats=2, name="p0", bind="127.0.0.1", engine=fake_engine, edition="race",
        options={"target": 40}, chain_length=64, timeout=120, log_dir=tmp_path, discovery_timeout=20,
        progress=progress, choose=lambda *a: None)))
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        addr = await asyncio.wait_for(where, 20)
        await asyncio.sleep(0.2)
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        sock.bind((STRANGER, 0))
        sock.setblocking(False)
        ep = Endpoint(accept_plain=True)
        queued, deadline = 0, time.monotonic() + 90  # a cap for a loaded machine, not a timing
        while time.monotonic() < deadline:
            while queued < N:
                try:
                    ep.send(addr, bytes([0x93, MSG_CATCHUP_RESP]) + queued.to_bytes(4, "big") + b"\0" * (SIZE - 6))
                    queued += 1
                except BufferFull:
                    break
            now = time.monotonic()
            ep.handle_timer(now)
            for data, dst in ep.datagrams_to_send(now):
                sock.sendto(data, dst)
            await asyncio.sleep(0.002)
            try:
                while True:
                    data, src = sock.recvfrom(65536)
                    ep.receive_datagram(data, src, time.monotonic())
            except BlockingIOError:
                pass
            if queued == N and ep.channels[addr].idle:
                break
        if not (queued == N and ep.channels[addr].idle):  # not the rule under test: fail loudly
            raise RuntimeError("the host did not take the stranger's payloads")
        await asyncio.sleep(0.2)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
        sock.close()
        host.cancel()
        await asyncio.gather(host, return_exceptions=True)
    return held, N * SIZE


def test_a_stranger_cannot_make_a_lobby_host_keep_megabytes_of_early_session_messages(tmp_path):
    """The stranger sends N session-tagged payloads of SIZE bytes to a host whose lobby waits for
    players. The rule (§N2.6 'Bounds'): what strangers make a peer keep stays within BOUND."""
    held, sent = asyncio.run(_stranger_fills_a_lobby_host(tmp_path))
    assert held <= BOUND, f"kept {held:,} B for {sent:,} B from a stranger"
