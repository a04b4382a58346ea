"""NetGame over real loopback sockets and mDNS: the host's human seat (autoplay) plays a whole
game against a bot peer that joined by address (``fill_with_bots`` uses PeerConfig.host_addr);
the UI sees the lobby, the steps and the end, and the log it is given verifies."""

from __future__ import annotations

import asyncio

from p2p.verify import verify_log
from ui.backends import CreateRequest, NetLobby


def test_net_game_with_a_bot_peer_reaches_the_end(tmp_path):
    async def run():
        lobby = NetLobby("127.0.0.1", log_dir=tmp_path, bot_pace=0)
        game = lobby.create("Marco", CreateRequest(seats=2))
        game.human.set_autoplay(True)
        kinds: list[str] = []
        game.listener = kinds.append
        task = asyncio.ensure_future(game.run())
        for _ in range(100):
            if game.join_code:
                break
            await asyncio.sleep(0.05)
        assert game.join_code.startswith("127.0.0.1:")
        await game.fill_with_bots()
        await asyncio.wait_for(task, 120)
        await game.close()
        return game, kinds

    game, kinds = asyncio.run(run())
    assert game.fault is None and game.phase == "over"
    assert set(game.names) == {"Marco", "Bot 1"} and game.seat == game.names.index("Marco")
    assert kinds.count("step") > 10 and kinds[-1] == "over"
    assert game.state is not None and game.log_path is not None
    assert verify_log(game.log_path).ok


def test_a_peer_that_goes_silent_becomes_a_log_line_and_a_mark(tmp_path):
    """A player who leaves does not become a bot silently: three players (each a NetGame
    on autoplay, joined by address), one of them stops; once the drop timeout passes the
    session's SeatDropVoted and SeatDropped reach the others' UI as SeatChanged events (a log
    line each) and ``seat_changes`` marks the seat for the players panel; the game goes on to
    its end with a bot in that seat (protocol.md §C8, rule "bot")."""
    from ui.play import SeatChanged

    async def run():
        lobby = NetLobby("127.0.0.1", log_dir=tmp_path, bot_pace=0)
        host = lobby.create("Marco", CreateRequest(seats=3, on_drop="bot", drop_timeout=2))
        tasks = [asyncio.ensure_future(host.run())]
        for _ in range(100):
            if host.join_code:
                break
            await asyncio.sleep(0.05)
        games = [host] + [lobby.join_code(name, host.join_code) for name in ("Anna", "Bruno")]
        tasks += [asyncio.ensure_future(g.run()) for g in games[1:]]
        for g in games:
            g.human.set_autoplay(True)
        for _ in range(200):
            if host.state is not None:
                break
            await asyncio.sleep(0.05)
        from ui.watch import WatchDriver

        watcher = WatchDriver(host.node.discovery.advertised, "127.0.0.1", name="Prof")
        watching = asyncio.ensure_future(watcher.run())
        tasks[2].cancel()  # Bruno's program stops: his peer goes silent
        seen: list = []
        for _ in range(400):
            seen += [e for e in host.take_events() if isinstance(e, SeatChanged)]
            if any(e.change == "bot" for e in seen):
                break
            await asyncio.sleep(0.05)
        await asyncio.wait_for(asyncio.gather(*tasks[:2], watching), 120)
        await asyncio.gather(tasks[2], return_exceptions=True)
        return host, seen, watcher, games[2], games[1]

    host, seen, watcher, stopped, anna = asyncio.run(run())
    # Stopping the program closed its peer: the game socket too, though zeroconf's close re-raises
    # the cancellation (Node.close); else the session played on from its datagrams and the seat
    # was never silent (the cause of this test's failures in sessions 3 and 4)
    assert stopped.node.link is None
    bruno = host.names.index("Bruno")
    assert [(e.seat, e.change) for e in seen if e.change != "silent"] == [(bruno, "bot")]
    assert host.seat_changes == {bruno: "bot"}
    # a spectator sees the same seat change, from the verified DROP record (protocol.md §N10)
    assert watcher.fault is None and watcher.phase == "over" and watcher.seat_changes == {bruno: "bot"}
    assert host.phase == "over" and host.fault is None
    # protocol.md §C2.4: every seat and the spectator show one table code
    assert len(host.table_code) == 9 and host.table_code == anna.table_code == stopped.table_code == watcher.table_code


def test_restarted_play_lists_our_game_and_rejoins_it(tmp_path):
    """issue 11 "Rejoin from the game itself": Marco's program stops mid-game; a new NetLobby
    on the same log directory and keys lists the game as his (``mine``), ``rejoin`` resumes it
    from the log (protocol.md §N5) and catches up; his log says he is back, and both finish
    with the same final state."""
    from p2p.identity import Identity
    from ui.play import SeatChanged

    marco_id = Identity.generate()

    async def run():
        lobby = NetLobby("127.0.0.1", log_dir=tmp_path / "marco", identity=marco_id, bot_pace=0)
        host = lobby.create("Marco", CreateRequest(seats=2))
        task = asyncio.ensure_future(host.run())
        for _ in range(100):
            if host.join_code:
                break
            await asyncio.sleep(0.05)
        anna = NetLobby("127.0.0.1", log_dir=tmp_path / "anna", bot_pace=0).join_code("Anna", host.join_code)
        anna.human.set_autoplay(True)
        host.human.set_autoplay(True)
        anna_task = asyncio.ensure_future(anna.run())
        for _ in range(400):
            if host.state is not None and host.node.step > 5:
                break
            await asyncio.sleep(0.01)
        task.cancel()  # Marco's program stops
        await asyncio.gather(task, return_exceptions=True)
        again = NetLobby("127.0.0.1", log_dir=tmp_path / "marco", identity=marco_id, bot_pace=0)
        mine = again.mine()
        assert [g.game_id for g in mine] == [host.node.lobby.game_id]
        assert set(mine[0].names) == {"Marco", "Anna"} and mine[0].names[mine[0].seat] == "Marco"
        back = again.rejoin("Marco", mine[0])
        back.human.set_autoplay(True)
        await asyncio.wait_for(asyncio.gather(back.run(), anna_task), 120)
        return back, anna

    back, anna = asyncio.run(run())
    assert back.fault is None and anna.fault is None and back.phase == anna.phase == "over"
    assert back.seat == back.names.index("Marco")
    events = back.take_events()
    assert any(isinstance(e, SeatChanged) and e.change == "back" and e.seat == back.seat for e in events)
    assert back.node.session.state_hash == anna.node.session.state_hash
    assert verify_log(back.log_path).ok


def test_chat_in_the_lobby_and_during_the_game(tmp_path):
    """protocol.md §N9 over real sockets: in the lobby a joiner's line reaches the host and, relayed
    by the host, the other joiner; during the game every seat's line reaches every other seat
    directly. Each line shows once, with the author's name."""
    from p2p.chat import ChatLine

    async def wait(cond):
        for _ in range(400):
            if cond():
                return
            await asyncio.sleep(0.02)

    async def run():
        lobby = NetLobby("127.0.0.1", log_dir=None, bot_pace=0)
        host = lobby.create("Marco", CreateRequest(seats=4))
        tasks = [asyncio.ensure_future(host.run())]
        await wait(lambda: host.join_code)
        anna, bruno, carla = (lobby.join_code(n, host.join_code) for n in ("Anna", "Bruno", "Carla"))
        tasks += [asyncio.ensure_future(g.run()) for g in (anna, bruno)]
        await wait(lambda: len(host.lobby_names) == 3 and len(anna.lobby_names) == 3 and len(bruno.lobby_names) == 3)
        anna.say("ciao a tutti")
        await wait(lambda: host.chat_lines and bruno.chat_lines)
        tasks.append(asyncio.ensure_future(carla.run()))
        games = (host, anna, bruno, carla)
        for g in games:
            g.human.pace = 0.05
            g.human.set_autoplay(True)
        await wait(lambda: all(g.phase == "playing" and g.state is not None for g in games))
        carla.say("buon gioco")
        await wait(lambda: all(len(g.chat_lines) >= 2 for g in (host, anna, bruno)))
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return games

    host, anna, bruno, carla = asyncio.run(run())
    said = lambda g: [(x.name, x.text) for x in g.chat_lines if isinstance(x, ChatLine)]
    for g in (host, anna, bruno):
        assert said(g) == [("Anna", "ciao a tutti"), ("Carla", "buon gioco")]
    assert said(carla) == [("Carla", "buon gioco")]
    assert host.node.player.chat.stats["shown"] == 2 and bruno.node.player.chat.stats["shown"] == 2


def test_a_spectator_follows_a_game_verified_to_its_end(tmp_path):
    """protocol.md §N10 over real sockets: a spectator subscribes to the host's watch port
    (TXT wp), receives the log records, verifies them by replay and ends with the same final
    state as the players; the game does not wait for it, and it joins after the start."""
    from ui.watch import WatchDriver

    async def run():
        lobby = NetLobby("127.0.0.1", log_dir=tmp_path, bot_pace=0.01)
        host = lobby.create("Marco", CreateRequest(seats=2))
        host.human.pace = 0.01
        host.human.set_autoplay(True)
        task = asyncio.ensure_future(host.run())
        for _ in range(100):
            if host.join_code:
                break
            await asyncio.sleep(0.05)
        await host.fill_with_bots()
        for _ in range(400):
            if host.state is not None and host.node.step > 20:
                break
            await asyncio.sleep(0.01)
        ad = host.node.discovery.advertised
        assert ad.watch_port is not None and ad.state == "running"
        watcher = WatchDriver(ad, "127.0.0.1", name="Prof")
        kinds: list[str] = []
        watcher.listener = kinds.append
        watching = asyncio.ensure_future(watcher.run())
        for _ in range(400):
            if watcher.phase == "playing":
                break
            await asyncio.sleep(0.01)
        # Chat through the watch socket (§N10): the spectator's line reaches the seats marked
        # as a spectator's, a seat's line reaches the spectator.
        watcher.say("forza Marco")
        for _ in range(400):
            if host.chat_lines:
                break
            await asyncio.sleep(0.01)
        host.say("grazie prof")
        for _ in range(400):
            if len(watcher.chat_lines) >= 2:
                break
            await asyncio.sleep(0.01)
        await asyncio.wait_for(asyncio.gather(task, watching), 120)
        await host.close()
        return host, watcher, kinds

    host, watcher, kinds = asyncio.run(run())
    said = lambda g: [(x.name, x.role, x.text) for x in g.chat_lines]
    assert said(host) == [("Prof", "spectator", "forza Marco"), ("Marco", "player", "grazie prof")]
    assert said(watcher) == [("Prof", "spectator", "forza Marco"), ("Marco", "player", "grazie prof")]
    assert host.phase == "over" and host.fault is None
    assert watcher.fault is None and watcher.phase == "over" and kinds[-1] == "over"
    import engine
    assert engine.state_hash(watcher.state) == host.node.session.state_hash
    assert set(watcher.names) == set(host.names) and watcher.seat == -1
    assert watcher.take_events() and watcher.private_view() == {}
    stats = host.node.watch.server.stats
    assert stats["subscribed"] == 1 and stats["sent"] >= 1
