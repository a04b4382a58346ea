"""Whole peers on loopback: transport + zeroconf (restricted to 127.0.0.1) + lobby + lockstep.

Each peer is an asyncio task in this process with its own socket and its own zeroconf; they
find each other by mDNS and play a complete game with bots (protocol.md part N section 4,
DESIGN.md section 2: all peers end on the same state hash). The dice-race stand-in engine
(tests/p2p/fake_engine.py) keeps these tests independent of the rules engine; test_node_engine.py
plays the real one.
"""

import asyncio
import os

import pytest

import fake_engine
from p2p.gamelog import LogReader
from p2p.identity import Identity
from p2p.node import NodeError, PeerConfig, run_peer
from ui.progress import progress_json


def race_bot(state, seat, bot):
    acts = fake_engine.legal_actions(state, seat)
    return acts[-1] if acts else None


async def play(n, tmp_path, *, seed=None, join_game_id=True, timeout=60):
    gid_known = asyncio.get_running_loop().create_future()
    lines = {i: [] for i in range(n)}

    def recorder(i):
        def cb(report):
            msg = progress_json(report)  # the node reports records; ui writes them as lines
            lines[i].append(msg)
            if msg["type"] == "hosting" and not gid_known.done():
                gid_known.set_result(bytes.fromhex(msg["game_id"]))
        return cb

    common = dict(bind="127.0.0.1", engine=fake_engine, choose=race_bot, edition="race",
                  options={"target": 40}, chain_length=1024, timeout=timeout,
                  log_dir=tmp_path, discovery_timeout=20)
    seeds = [None if seed is None else seed + bytes([i]) for i in range(n)]
    host = asyncio.ensure_future(run_peer(PeerConfig(role="host", seats=n, name="p0",
                                                     demo_seed=seeds[0], progress=recorder(0),
                                                     **common)))
    gid = await asyncio.wait_for(gid_known, 20)
    # Without a game id a joiner takes the first open game; other games may be advertised on
    # this host's loopback (other test runs), so it only considers games of our host's key.
    host_fp = Identity.from_seed(seeds[0]).fingerprint if seeds[0] else None
    joiners = [asyncio.ensure_future(run_peer(PeerConfig(
        role="join", name=f"p{i}", demo_seed=seeds[i], progress=recorder(i),
        game_id=gid if join_game_id else None,
        game_filter=lambda ad: ad.fingerprint == host_fp, **common))) for i in range(1, n)]
    results = await asyncio.gather(host, *joiners)
    return results, lines


@pytest.mark.parametrize("n", [2, 4])
def test_peers_find_each_other_and_agree_on_the_final_state(n, tmp_path):
    results, lines = asyncio.run(play(n, tmp_path))
    hashes = {r.final_state_hash for r in results}
    assert len(hashes) == 1
    assert sorted(r.seat for r in results) == list(range(n))
    assert len({r.winner for r in results}) == 1 and results[0].winner is not None
    assert len({r.steps for r in results}) == 1 and results[0].steps > 0
    for i, r in enumerate(results):
        kinds = [m["type"] for m in lines[i]]
        assert kinds[-1] == "done" and kinds.count("found") == 1
        assert lines[i][-1]["final_state_hash"] == r.final_state_hash.hex()
        # the log holds the header, one record per step and the final attestation (§C3.5)
        records = list(LogReader(r.log_path))
        assert len(records) == r.steps + 2
    assert lines[0][0]["type"] == "hosting"


def test_joiner_without_game_id_picks_the_open_game(tmp_path):
    results, _ = asyncio.run(play(2, tmp_path, seed=os.urandom(8), join_game_id=False))
    assert len({r.final_state_hash for r in results}) == 1


def test_join_with_no_game_fails_cleanly(tmp_path):
    cfg = PeerConfig(role="join", bind="127.0.0.1", game_id=os.urandom(16), discovery_timeout=0.5,
                     engine=fake_engine, choose=race_bot)
    with pytest.raises(NodeError) as info:
        asyncio.run(run_peer(cfg))
    assert info.value.code == "not_found"
    assert progress_json(info.value)["type"] == "error"


def test_config_refuses_wildcard_bind_and_bad_role():
    with pytest.raises(ValueError):
        PeerConfig(role="host", bind="0.0.0.0")
    with pytest.raises(ValueError):
        PeerConfig(role="server")


def test_a_failing_message_handler_fails_the_peer_at_once(tmp_path):
    """A bug in the node's handler (here: the bot raises at its third call) is not swallowed by the
    transport's receive loop (protocol.md §N4): the peer fails with NodeError "internal" long
    before its timeout instead of hanging."""

    calls = []

    def broken_bot(state, seat, bot):
        calls.append(seat)
        if len(calls) >= 3:
            raise RuntimeError("bot bug")
        return race_bot(state, seat, bot)

    async def run():
        gid_known = asyncio.get_running_loop().create_future()

        def on_host(report):
            msg = progress_json(report)
            if msg["type"] == "hosting" and not gid_known.done():
                gid_known.set_result(bytes.fromhex(msg["game_id"]))

        common = dict(bind="127.0.0.1", engine=fake_engine, edition="race", options={"target": 40},
                      chain_length=1024, timeout=60, discovery_timeout=20)
        host = asyncio.ensure_future(run_peer(PeerConfig(role="host", seats=2, name="p0",
                                                         choose=broken_bot, progress=on_host,
                                                         log_dir=tmp_path / "h", **common)))
        gid = await asyncio.wait_for(gid_known, 20)
        joiner = asyncio.ensure_future(run_peer(PeerConfig(role="join", name="p1", game_id=gid,
                                                           choose=race_bot, log_dir=tmp_path / "j",
                                                           **common)))
        try:
            with pytest.raises(NodeError) as info:
                await asyncio.wait_for(host, 20)
        finally:
            joiner.cancel()
            await asyncio.gather(joiner, return_exceptions=True)
        return info.value

    err = asyncio.run(run())
    assert err.code == "internal"
    assert "bot bug" in str(err)
