"""Three whole peers play a complete classico game with the real engine and the default bots
over loopback UDP, having found each other by mDNS on 127.0.0.1 (DESIGN.md sections 2 and 5):
every peer ends on the same state hash and winner, and every peer's log replays offline to that
hash (p2p/verify.py)."""

import asyncio
import os

from p2p.node import PeerConfig, run_peer
from p2p.verify import verify_log
from ui.progress import progress_json


async def play(n, tmp_path):
    hosting = asyncio.get_running_loop().create_future()
    run = os.urandom(4).hex().encode()  # concurrent runs on this host advertise distinct games

    def on_host(report):
        msg = progress_json(report)  # the node reports records; ui writes them as lines
        if msg["type"] == "hosting" and not hosting.done():
            hosting.set_result(bytes.fromhex(msg["game_id"]))

    common = dict(bind="127.0.0.1", timeout=240, log_dir=tmp_path, discovery_timeout=20)
    host = asyncio.ensure_future(run_peer(PeerConfig(role="host", seats=n, demo_seed=b"engine-0-" + run,
                                                     progress=on_host, **common)))
    gid = await asyncio.wait_for(hosting, 20)
    joiners = [asyncio.ensure_future(run_peer(PeerConfig(role="join", game_id=gid,
                                                         demo_seed=b"engine-%d-" % i + run, **common)))
               for i in range(1, n)]
    return await asyncio.gather(host, *joiners)


def test_three_peers_play_classico_to_the_end_and_agree(tmp_path):
    results = asyncio.run(play(3, tmp_path))
    assert len({r.final_state_hash for r in results}) == 1
    assert len({r.winner for r in results}) == 1 and results[0].winner is not None
    assert len({r.steps for r in results}) == 1
    assert results[0].events_by_type.get("GameWon") == 1
    for r in results:
        report = verify_log(r.log_path)
        assert report.ok, report
        assert report.final_state_hash == r.final_state_hash.hex()
