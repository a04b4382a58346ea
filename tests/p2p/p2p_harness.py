"""Test harness for the sans-I/O p2p core: seeded identities, an in-memory lobby exchange, and
an in-memory lockstep network with a virtual clock and fault injection (drop / tamper / inject),
in the manner of aioquic's tests. No sockets, no real time."""

from __future__ import annotations

import random
from typing import Any, Callable

from p2p.identity import Identity
from p2p.lobby import Lobby
from p2p.lockstep import LockstepSession

import fake_engine

CHAIN = 512  # short chains keep tests fast; the chain logic is the same for any length


def addr(i: int) -> tuple[str, int]:
    return ("127.0.0.1", 40000 + i)


def make_lobbies(n: int, *, edition: str = "race", options: Any = None, demo_seed: bytes = b"demo",
                 join_order: list[int] | None = None, chain: int = CHAIN) -> dict:
    """Host at addr(0) plus n-1 joiners, identities from_seed(bytes([i])). Returns
    {addr: Lobby} with the joins sent (not yet delivered)."""
    ids = [Identity.from_seed(bytes([i])) for i in range(n)]
    host = Lobby.host(ids[0], edition=edition, seats=n, name="p0", endpoint=addr(0), options=options,
                      demo_seed=demo_seed, chain_length=chain)
    lobbies = {addr(0): host}
    for i in join_order or range(1, n):
        lobbies[addr(i)] = Lobby.join(ids[i], endpoint=addr(i), host_addr=addr(0), game_id=host.game_id, name=f"p{i}",
                                      demo_seed=demo_seed, chain_length=chain)
    return lobbies


def pump_lobbies(lobbies: dict, now: float = 0.0, rng: random.Random | None = None) -> None:
    """Deliver lobby messages until quiet (shuffled per round if ``rng`` is given: the reliable
    transport orders per peer, not across peers). Every address here is a real peer's, so its
    channel is confirmed (``Endpoint.confirmed``: a join-code PROBE is answered, §N3.1)."""
    while True:
        batch = [(src, dst, raw) for src, lob in lobbies.items() for dst, raw in lob.messages_to_send()]
        if not batch:
            return
        if rng is not None:
            rng.shuffle(batch)
        for src, dst, raw in batch:
            lobbies[tuple(dst)].receive_message(raw, src, now, confirmed=True)


def drain(obj: Any) -> list:
    out = []
    while (e := obj.next_event()) is not None:
        out.append(e)
    return out


def started_sessions(n: int, engine: Any = fake_engine, options: Any = None, logs: list | None = None,
                     edition: str = "race") -> list[LockstepSession]:
    """Run a lobby to completion and return the sessions in seat order."""
    lobbies = make_lobbies(n, options=options, edition=edition)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda l: l.my_seat)
    return [l.start_session(engine, log=None if logs is None else logs[i]) for i, l in enumerate(ordered)]


def first_legal(engine: Any) -> Callable:
    return lambda s: (engine.legal_actions(s.state, s.my_seat) or [None])[0]


def random_legal(engine: Any, seed: int) -> Callable:
    rng = random.Random(seed)

    def choose(s: LockstepSession) -> Any:
        la = engine.legal_actions(s.state, s.my_seat)
        return rng.choice(la) if la else None

    return choose


class BadReveal:
    """A ``Net`` drop hook that makes seat ``seat`` cheat once (protocol.md §C8.8 kind 2): from
    step ``from_step`` on, its first STEP message whose input is a reveal (bytes) is replaced, for
    every peer, by one it signs (``identity``) with the reveal 32 bytes of 0x13, which does not
    hash to its chain. Its re-sends of that step deliver the same bad message; other messages
    pass. Attach the network after building it (``cheat.net = net``). After the run ``step`` is
    the step it cheated at (None if it never did) and ``raw`` the bad envelope."""

    def __init__(self, identity: Identity, seat: int, from_step: int = 6) -> None:
        self.identity, self.seat, self.from_step = identity, seat, from_step
        self.net: Net | None = None
        self.step: int | None = None
        self.raw: bytes | None = None

    def __call__(self, src: int, dst: int, data: bytes) -> bool:
        """True (dropped) for the cheater's message of that step, which goes out as the bad one."""
        from p2p.wire import MSG_STEP, decode_step_body, open_envelope, seal

        net = self.net
        if src != self.seat or data[:2] != bytes([0x93, MSG_STEP]) or net.s[dst] is None:
            return False
        b = decode_step_body(open_envelope(data).body)
        if b.step < self.from_step or type(b.input) is not bytes or self.step not in (None, b.step):
            return False
        if self.raw is None:
            self.step = b.step
            self.raw = seal(self.identity, MSG_STEP,
                            [b.game_id, b.step, self.seat, b.prev_hash, b.prev_digest, b"\x13" * 32])
        net.s[dst].receive_message(self.raw, net.now)
        return True


class Net:
    """In-memory broadcast network for lockstep sessions with a virtual clock.

    ``drop(src, dst, data) -> bool`` decides per delivery; ``tamper`` may rewrite bytes.
    ``run()`` alternates: local inputs, delivery of all queued messages, then, when nothing
    moves, advance the clock to the earliest timer."""

    def __init__(self, sessions: list[LockstepSession], choose: Callable, *,
                 drop: Callable[[int, int, bytes], bool] | None = None) -> None:
        self.s = sessions
        self.choose = choose
        self.drop = drop or (lambda src, dst, data: False)
        self.now = 0.0
        self.events: list[list] = [[] for _ in sessions]
        self.delivered = 0
        self.sent_log: list[tuple[int, bytes]] = []

    def inputs(self) -> bool:
        """Every session that awaits a local decision gets ``choose``'s, unless its player
        ``thinks``. True if any decided."""
        moved = False
        for i, s in enumerate(self.s):
            if s is not None and s.needs_local_input() is not None and not self.thinks(i, s):
                s.submit_local_input(self.choose(s), now=self.now)
                moved = True
        return moved

    def thinks(self, seat: int, s: LockstepSession) -> bool:
        """True: ``seat``'s player takes no decision now although its session ``s`` awaits one
        (its peer still receives, runs its timers and sends). A subclass says when; never here."""
        return False

    def deliver(self) -> bool:
        moved = False
        for i, s in enumerate(self.s):
            if s is None:
                continue
            for raw in s.messages_to_send():
                self.sent_log.append((i, raw))
                for j, o in enumerate(self.s):
                    if j != i and o is not None and not self.drop(i, j, raw):
                        self.send_to(i, o, raw)
                        self.delivered += 1
                moved = True
        for i, s in enumerate(self.s):
            if s is not None:
                self.events[i].extend(drain(s))
        return moved

    def send_to(self, src: int, dst: LockstepSession, raw: bytes) -> None:
        """Deliver ``raw`` from seat ``src`` to the session ``dst`` (subclasses add the channel)."""
        dst.receive_message(raw, self.now)

    def run(self, max_time: float = 120.0, max_rounds: int = 200000,
            hook: Callable[["Net"], Any] | None = None) -> None:
        """Run until every live session stopped, time passes ``max_time`` or nothing is left
        to do. ``hook(net)`` runs every round (scripted crashes and restarts); it may return a
        time at which it wants to run again (a virtual timer)."""
        for _ in range(max_rounds):
            wake = hook(self) if hook is not None else None
            moved = self.inputs()
            moved = self.deliver() or moved
            live = [s for s in self.s if s is not None]
            if all(s.phase != "running" for s in live) and wake is None:
                return
            if not moved:
                timers = [t for s in live if (t := s.get_timer()) is not None]
                if wake is not None:
                    timers.append(wake)
                if not timers or min(timers) > max_time:
                    return
                self.now = max(self.now, min(timers))
                for s in live:
                    t = s.get_timer()
                    if t is not None and t <= self.now:
                        s.handle_timer(self.now)
        raise AssertionError("network did not settle: " + self.describe())

    def describe(self) -> str:
        """One line per live peer (phase, step, epoch, seats it waits for, seats it is paused on,
        voter -> target of the current step's DROP votes it holds), so that a run that did not
        settle says why: e.g. split votes (§C8.3 'Liveness after split votes'), a documented
        limit, show as targets naming two seats, none with a quorum."""
        out = []
        for i, s in enumerate(self.s):
            if s is None:
                out.append(f"{i}: crashed")
                continue
            out.append(f"{i}: {s.phase} step {s.step} epoch {s.seats.epoch} waiting {s.waiting_for()} "
                       f"paused {s.paused()} votes {s.seats.targets(s.step)}")
        return f"t={self.now:.1f} s; " + "; ".join(out)


def crash_at(seat: int, step: int) -> Callable[["Net"], None]:
    """A ``Net.run`` hook: ``seat``'s peer stops for good (no message, no log close) once it
    reached ``step``."""
    def hook(net: "Net") -> None:
        if net.s[seat] is not None and net.s[seat].step >= step:
            net.s[seat] = None
    return hook


def restart_overturned(paths: list, secrets: list, restarts: list | None = None,
                       engine: Any = fake_engine) -> Callable[["Net"], None]:
    """A ``Net.run`` hook: a peer halted with ``StepOverturned`` restarts from its log
    (``paths[i]``, own-message log beside it) cut at that step, with its chain secret
    ``secrets[i]``, and is handed the kept version (``adopt_equivocation``, which must take
    it), as the node does (``node_restart``, protocol.md §C3.4 "Two versions applied"). Each
    restart is noted in ``restarts`` as (seat, step, whether a kept version was handed)."""
    from p2p.lockstep import HALTED, StepOverturned
    from p2p.resume import resume_session

    def hook(net: "Net") -> None:
        for i, s in enumerate(net.s):
            if s is None or s.phase != HALTED or not isinstance(s.halt_reason, StepOverturned):
                continue
            ev = s.halt_reason
            s.log.close()
            s.own_log.close()
            again, _ = resume_session(paths[i], s.identity, secrets[i], engine, own_log_path=str(paths[i]) + ".own",
                                      now=net.now, truncate_at=ev.step)
            if ev.chosen is not None:
                assert again.ingest.adopt_equivocation(ev.step, ev.seat, ev.chosen, ev.other)
            net.s[i] = again
            if restarts is not None:
                restarts.append((i, ev.step, ev.chosen is not None))
    return hook


def finish_together(net: "Net", sessions: list, paths: list, honest: Any, cheaters: Any = None,
                    engine: Any = fake_engine) -> None:
    """Assert that every honest peer ended with one GameOver and one final hash, and that its log
    verifies complete (``p2p.verify.verify_log``) and names exactly ``cheaters`` as cheaters
    (None: not checked). Closes the honest peers' logs."""
    from p2p.lockstep import GameOver
    from p2p.verify import verify_log

    finals = []
    for i in honest:
        overs = [e for e in net.events[i] if isinstance(e, GameOver)]
        assert len(overs) == 1, (i, net.describe())
        finals.append(overs[0].final_hash)
    assert len(set(finals)) == 1
    for i in honest:
        sessions[i].log.close()
        rep = verify_log(paths[i], engine=engine)
        assert rep.ok and rep.complete, (i, rep.error)
        assert cheaters is None or {c["seat"] for c in rep.cheaters} == set(cheaters), (i, rep.cheaters)
