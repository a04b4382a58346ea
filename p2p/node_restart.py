"""A peer's restart and seat-address part: where each seat is, and our game after a restart.

``NodeRestart`` is owned by ``p2p.node.Node`` (one per node) and owns the state of that job:

* ``seats`` (``rendezvous.SeatAddresses``): every seat's endpoint once the game runs, moved by
  the seats' DNS-SD adverts (protocol.md §N3.2) and confirmed when a moved seat speaks;
* ``rendezvous``: our seat's advert and the browse for the others', opened once per node
  (after a restart, or once a step has waited ``node.WAIT_NOTICE`` s or a seat was dropped);
* ``files`` (``node_resume.GameFiles``): our game log and its side files, created at the
  start, rewritten when a seat moves, replayed on a restart (protocol.md §C10) or when our
  state forked at a step (our seat lost, a step overturned: §C8.3, §C8.4), removed at the end;
* ``report``: what the replay of our log found (``resume.ResumeReport``), after a restart.

It drives the node only through the node's own calls (``NodeHost`` below: the socket, the
session it adopts, the reports it emits), never the node's private state. The file I/O is
``node_resume.GameFiles``'s; the address rules are ``rendezvous.SeatAddresses``'.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .errors import LocalProtocolError
from .lockstep import GameOver
from .node_config import NodeError
from .node_reports import RendezvousFailed, ReseatAsked, Resumed, SeatAdvertIgnored, SeatFound
from .node_resume import GameFiles
from .rendezvous import Rendezvous, SeatAddresses
from .table_code import table_code
from .transport import Addr

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam p2p sees; the caller passes the engine)
    from engine.api import Engine

__all__ = ["NodeHost", "NodeRestart", "read_resume"]


class NodeHost(Protocol):
    """What ``NodeRestart`` uses of its node (``p2p.node.Node``): its configuration, keys,
    engine, loop, socket (``link``), running ``session`` and spectator service (``watch``), and
    these calls."""

    cfg: Any
    identity: Any
    engine: Engine
    loop: Any
    link: Any
    session: Any
    watch: Any

    async def open_link(self, port: int, fallback: bool = False) -> None: ...
    def adopt(self, session: Any, log_path: Path) -> None: ...
    def route_seats(self, extra: Any = ()) -> None: ...
    def report(self, report: Any) -> None: ...
    def pump(self) -> None: ...
    def serve_spectators(self, setup: Any, seat: int) -> None: ...
    def finish(self, ev: GameOver) -> None: ...
    def fail(self, err: NodeError) -> None: ...
    def spawn(self, coro: Any) -> Any: ...


def read_resume(files: GameFiles | None) -> dict:
    """``GameFiles.read_resume``, its failure (or no files: a game without a log) as
    ``NodeError("resume")``."""
    if files is None:
        raise NodeError("resume", "no resume file: the game runs without a log")
    try:
        return files.read_resume()
    except LocalProtocolError as e:
        raise NodeError("resume", str(e)) from None


def _winner(engine: Engine, state: Any) -> int | None:
    """The engine's winner of ``state`` (None: none, or an engine without ``winner``)."""
    w = getattr(engine, "winner", None)
    return None if w is None else w(state)


class NodeRestart:
    """The node's seat addresses, rendezvous and game files (see the module docstring)."""

    def __init__(self, node: NodeHost) -> None:
        self.node = node
        #: Where each seat is once the game runs, moved by the seats' adverts (§N3.2).
        self.seats = SeatAddresses()
        #: After a resume or a wait: our seat's DNS-SD advert and the other seats' addresses.
        self.rendezvous: Rendezvous | None = None
        self._rendezvous_asked = False
        #: Our game log and its side files once the game runs with a log (node_resume.py).
        self.files: GameFiles | None = None
        #: After a restart from our log: what ``resume_session`` found (``ResumeReport``).
        self.report: Any = None

    # -- a new game ------------------------------------------------------------------------

    def new_game(self, endpoints: list, my_seat: int, log_dir: str | os.PathLike[str] | None,
                 game_id: bytes, header: bytes, chain_secret: bytes) -> Any:
        """The game starts: remember the seats' ``endpoints`` (``[(host, port)]`` in seat order)
        and, with a ``log_dir``, create the log and its ``.resume`` file. Returns the log's
        writer (None without ``log_dir``); raises ``OSError`` as ``GameFiles.create``."""
        self.seats.set_endpoints(endpoints, my_seat)
        self.seats.started(self.node.loop.time())  # heard at their lobby endpoints now (§N3.2)
        if log_dir is None:
            return None
        self.files = GameFiles.new_game(log_dir, game_id, my_seat)  # named even if creating fails
        return self.files.create(header, chain_secret, my_seat, endpoints)

    def game_over(self) -> None:
        """Nothing left to resume: the chain secrets have no use left (``GameFiles.finished``)."""
        if self.files is not None:
            self.files.finished()

    # -- restart (protocol.md §C10) ----------------------------------------------------------

    async def resume(self, path: Path) -> None:
        """Rejoin the game of ``path`` from our log (protocol.md §C10): same socket address as
        before (the others still send there; a new transport epoch tells them we restarted),
        replay and check the log, report damage, re-send our current message and ask for
        catch-up. Raises ``NodeError("resume")`` if the files cannot be read or replayed."""
        node = self.node
        files = GameFiles(path)
        info = read_resume(files)
        eps = info["endpoints"]
        # Our old port; if it is taken, any: the others cannot reach us until they hear from us.
        await node.open_link(node.cfg.port or eps[info["seat"]][1], fallback=True)
        try:
            sess, rep = files.replay(node.identity, info["chain_secret"], node.engine, node.loop.time())
        except (LocalProtocolError, OSError) as e:
            raise NodeError("resume", f"cannot resume from {path}: {e}") from None
        self._adopt(files, sess, eps)
        await node.watch.open()  # a resumed seat serves spectators too (§N10)
        node.serve_spectators(sess.setup, sess.my_seat)
        self.report = rep
        if rep is not None and not rep.finished:
            await self.open_rendezvous()  # the others may be back from other addresses (§N3.2)
        code = table_code(sess.setup_hash, sess.game_seed)  # shown again after a restart (§C2.4)
        node.report(Resumed(str(path), rep.steps, rep.own_resent, rep.damage, code))
        if rep.finished:
            node.finish(GameOver(_winner(node.engine, sess.state), sess.state_hash, sess.step))
            return
        node.pump()

    def _adopt(self, files: GameFiles, sess: Any, eps: list) -> None:
        """Run ``sess`` (replayed from ``files``) with the seats at ``eps``."""
        self.seats.set_endpoints(eps, sess.my_seat)
        self.files = files
        self.node.adopt(sess, files.log_path)
        self.ask_reseat()  # our seat went to the bot while we were away (§C8.9)

    def ask_reseat(self) -> None:
        """Our seat is played by the bot and we are here (restarted, or caught up after the
        drop): ask to play it again (protocol.md §C8.9) with a fresh chain secret, kept first in
        ``<log>.reseat`` (mode 0600; the same secret again after the same drop, so a restart
        never makes a second request). The session re-sends it until ``SeatReturned``."""
        sess = self.node.session
        info = sess.dropped.get(sess.my_seat) if sess is not None else None
        if info is None or not sess.spectator or self.files is None or not sess.reseat.offered:
            return  # not offered with hidden information (§C8.9): no secret to keep either
        secret = self.files.reseat_secret_for(info.step)
        if sess.request_reseat(secret, self.node.loop.time()):
            self.node.report(ReseatAsked(sess.step, info.step))

    def become_spectator(self, ev: Any) -> None:
        """``SeatLost``: our seat was dropped at ``ev.step`` after we had applied that step
        ourselves; ``StepOverturned``: a quorum dropped another seat at a step we applied with
        its message, or (``ev.chosen`` set) the table keeps another version of a seat's message
        than the one we applied. Either way our state forked at ``ev.step``: cut our log back to
        that step and resume (holding ``ev.chosen`` for its seat); the catch-up brings the drop
        or the kept version (we follow as a spectator if the seat was ours, else we play on). Protocol.md §C8.3, §C8.4. Raises ``NodeError("resume")``
        without a readable ``.resume`` file."""
        node = self.node
        node.report(ev)  # the seat_lost / step_overturned line
        old = node.session
        for f in (old.log, old.own_log):
            if f is not None:
                f.close()
        info = read_resume(self.files)
        try:
            sess, _ = self.files.replay(node.identity, info["chain_secret"], node.engine, node.loop.time(),
                                        truncate_at=ev.step)
        except (LocalProtocolError, OSError) as e:
            node.fail(NodeError("resume", f"cannot follow the game after losing our seat: {e}", ev.step))
            return
        # the version the halt names: the kept one, or another seat's record's when ours rested on
        # the equivocator's word alone (§C3.4 "Two versions applied", 'its word alone')
        if getattr(ev, "chosen", None) is not None:
            sess.ingest.adopt_equivocation(ev.step, ev.seat, ev.chosen, ev.other)
        self._adopt(self.files, sess, info["endpoints"])
        node.pump()

    # -- seats found elsewhere (protocol.md §N3.2) ---------------------------------------------

    async def open_rendezvous(self) -> None:
        """Advertise our seat and find the other seats by their keys wherever they listen now
        (protocol.md §N3.2). Once per node: after a resume, or in a running game once a step has
        waited WAIT_NOTICE s or a seat was dropped (its player may come back from elsewhere)."""
        node = self.node
        sess = node.session
        if self.rendezvous is not None or sess is None or node.link is None:
            return
        cfg = node.cfg
        self.rendezvous = Rendezvous([cfg.interface or cfg.bind], sess.setup, sess.my_seat, self.seat_moved)
        try:
            await self.rendezvous.start(*node.link.address)
        except Exception as e:  # noqa: BLE001 - no DNS-SD here (no multicast, a name clash):
            node.report(RendezvousFailed(str(e)))  # the endpoints we know only

    def want_rendezvous(self) -> None:
        """Start ``open_rendezvous`` in the background (from a synchronous handler)."""
        if self.rendezvous is None and not self._rendezvous_asked:
            self._rendezvous_asked = True
            self.node.spawn(self.open_rendezvous())

    def seat_moved(self, seat: int, addr: tuple[str, int]) -> None:
        """Rendezvous: ``seat`` of our game listens at ``addr`` now (its advert has that seat's
        setup keys, §N3.2): unless the seat was heard at its address lately
        (``SeatAddresses.advert``), send there, accept its channel from there (keyed with its
        X25519 key, so the address carries no trust) and remember it in the ``.resume`` file."""
        node = self.node
        if node.session is None or not self.seats.endpoints or node.link is None:
            self.seats.pending.pop(seat, None)
            return
        ep = node.link.endpoint
        heard = ep.last_heard(self.seats.endpoints[seat])
        verdict = self.seats.advert(seat, addr, heard, node.loop.time(), ep.last_heard)  # §N3.2 unheard holder
        if verdict == "ignored":
            node.report(SeatAdvertIgnored(seat, str(addr[0]), int(addr[1])))
        elif verdict == "moved":
            self._seat_found(seat)

    def seat_spoke(self, addr: Addr) -> None:
        """A seat an advert had moved sent an authenticated datagram from ``addr``, an address
        we had heard it at (its channel is keyed with the seat's key): it is there."""
        self._seat_found(self.seats.spoke(addr))

    def _seat_found(self, seat: int) -> None:
        """``seat`` moved in ``seats``: send there, key its channel, rewrite ``.resume``."""
        node, eps = self.node, self.seats.endpoints
        node.route_seats(self.seats.left_from)
        if self.files is not None:
            self.files.remember_endpoints(node.session.my_seat, eps)
        node.report(SeatFound(seat, eps[seat][0], eps[seat][1]))
        node.pump()

    def tick(self) -> None:
        """Every tick of the running game: apply the adverts that came before the game ran."""
        for seat, addr in list(self.seats.pending.items()):
            self.seat_moved(seat, addr)

    async def close(self) -> None:
        """Withdraw our seat's advert (if any)."""
        if self.rendezvous is not None:
            r, self.rendezvous = self.rendezvous, None
            await r.close()
