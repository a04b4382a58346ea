"""What our player asks of the table besides our seat's input (``node_input``): chat lines
(protocol.md §N9), votes to let an idle seat's turn pass (§C8.10, and the headless player's
patience, ``PeerConfig.skip_idle_after``), votes to drop an idle seat (§C13.6).

``NodePlayer`` is owned by ``p2p.node.Node`` (one per node) and owns the chat relay of the
game (``chat.ChatRelay``); it acts on the node only through ``PlayerHost``'s calls and public
state. The rules are the session's (``LockstepSession.skip_turn``/``vote_out``) and the chat's.
"""

from __future__ import annotations

from typing import Any, Protocol

from .chat import ChatRelay, ChatRoom
from .node_watchdog import idle_seats
from .transport import Addr

__all__ = ["NodePlayer", "PlayerHost"]


class PlayerHost(Protocol):
    """What ``NodePlayer`` uses of its node (``p2p.node.Node``); ``ChatRelay`` reads the node's
    ``lobby``, ``session``, ``peers`` and ``watch`` too."""

    cfg: Any
    identity: Any
    loop: Any
    link: Any
    session: Any
    phase: str
    seat: int

    def pump(self) -> None: ...


class NodePlayer:
    """Our player's chat and votes. ``chat_relay``: the game's ``ChatRelay``."""

    def __init__(self, node: PlayerHost) -> None:
        self._node = node
        cfg, ident = node.cfg, node.identity
        #: Chat of this game (protocol.md §N9): members, relaying; its room once our lobby or session exists.
        self.chat_relay = ChatRelay(ident, cfg.name or f"bot-{ident.fingerprint[:4]}", cfg.role == "host",
                                    node, self._send_chat, cfg.observer)

    @property
    def chat(self) -> ChatRoom | None:
        """Our game's ``ChatRoom`` (None before any lobby or session): ``ChatRelay.room``."""
        return self.chat_relay.room

    def on_chat(self, addr: Addr, payload: bytes) -> None:
        """A chat datagram from the game socket."""
        self.chat_relay.receive(addr, payload, self._node.loop.time())

    def on_watch_chat(self, addr: Addr, payload: bytes) -> None:
        """A spectator's chat datagram from the watch socket (``WatchService``)."""
        self.chat_relay.receive_spectator(addr, payload, self._node.loop.time())

    def _send_chat(self, addr: Addr, raw: bytes) -> None:
        self._node.link.send(addr, raw)

    def say(self, text: str) -> Any:
        """Send one chat line to the others (protocol.md §N9) and return it as a ChatLine.
        Raises ``ValueError`` (empty, too long, no lobby yet) or ``chat.ChatLimited``."""
        if self._node.link is None:
            raise ValueError("no game to chat in yet")
        return self.chat_relay.say(text, self._node.loop.time())

    def skip_turn(self, seat: int) -> bool:
        """Our player votes to let ``seat``'s turn at the current step pass: its input there
        counts as nil once a majority voted, and it keeps its seat (``LockstepSession.skip_turn``,
        protocol.md §C8.10). True if a vote went out."""
        return self._vote("skip_turn", seat)

    def skip_idle(self) -> None:
        """``PeerConfig.skip_idle_after``: once the current step has waited that long, vote to
        let the turn of every other seat it still waits for pass (§C8.10)."""
        node = self._node
        s = node.session
        for seat in idle_seats(s, node.seat, node.cfg.skip_idle_after, node.loop.time()):
            if node.phase == "playing" and node.session is s:
                self.skip_turn(seat)

    def vote_out(self, seat: int) -> bool:
        """Our player votes to drop ``seat``, idle at the current step, without waiting for the
        turn time (``LockstepSession.vote_out``, protocol.md §C13.6). True if a vote went out."""
        return self._vote("vote_out", seat)

    def _vote(self, kind: str, seat: int) -> bool:
        """Cast our vote ``kind`` ("skip_turn" or "vote_out", the session's method of that name)
        against ``seat`` while a game is being played, and send it at once. True if it went out."""
        node = self._node
        if node.session is None or node.phase != "playing":
            return False
        voted = getattr(node.session, kind)(seat, node.loop.time())
        if voted:
            node.pump()
        return voted
