"""Seeded network faults for tests and demos: loss, duplication, reordering, delay, partitions.

``FaultPlan`` decides the fate of one datagram; ``SimNetwork`` is an in-memory datagram network
on a virtual clock (the aioquic test pattern) that applies a plan to every datagram, so sans-I/O
endpoints can be tested deterministically without sockets or wall-clock time. Everything is a
pure function of the seed: the same seed gives the same losses in every run.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Addr = tuple[str, int]


@dataclass
class FaultPlan:
    """Per-datagram fault probabilities (0..1) and delays (seconds).

    Each datagram is lost with ``loss``; otherwise it arrives after ``delay`` plus a uniform
    jitter in [0, ``jitter``]; with ``reorder`` it is held back by an extra ``reorder_delay``
    (so later datagrams overtake it); with ``dup`` a second copy arrives independently.
    ``partitions``: windows ``(start, duration)`` in seconds after the plan's origin (the first
    ``plan(now)``/``partitioned(now)`` call, or the last ``set_origin``: the link's opening, then
    the node's game start, protocol.md §N6) during which every datagram,
    in and out, is lost; the link heals afterwards. ``random.Random`` is fine here: the plan
    is a test fixture, not a wire contract.
    """

    seed: int = 0
    loss: float = 0.0
    dup: float = 0.0
    reorder: float = 0.0
    delay: float = 0.0005
    jitter: float = 0.0
    reorder_delay: float = 0.005
    partitions: tuple[tuple[float, float], ...] = ()
    _rng: random.Random = field(init=False, repr=False)
    _origin: float | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        for name in ("loss", "dup", "reorder"):
            p = getattr(self, name)
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"{name}={p} is not a probability")
        for name in ("delay", "jitter", "reorder_delay"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")
        self.partitions = tuple((float(a), float(d)) for a, d in self.partitions)
        if any(a < 0 or d <= 0 for a, d in self.partitions):
            raise ValueError("a partition is (start >= 0, duration > 0) seconds")
        self._rng = random.Random(self.seed)
        self._held = False

    @property
    def active(self) -> bool:
        """True if the plan can change anything (a plan of zeros is a plain network)."""
        return bool(self.loss or self.dup or self.reorder or self.delay or self.jitter or self.partitions)

    def set_origin(self, now: float) -> None:
        """Start the partition clock at ``now`` (s, the caller's monotonic clock); ends a ``hold``."""
        self._origin = now
        self._held = False

    def hold(self) -> None:
        """No partition until the next ``set_origin``: the node holds them through its lobby and
        starts them at its game's start (protocol.md §N6)."""
        self._held = True

    def partitioned(self, now: float | None) -> bool:
        """True while ``now`` falls in a partition window (always False for ``now`` None)."""
        if now is None or not self.partitions or self._held:
            return False
        if self._origin is None:
            self._origin = now
        t = now - self._origin
        return any(a <= t < a + d for a, d in self.partitions)

    def plan(self, now: float | None = None) -> list[float]:
        """Delays (s) after which copies of one datagram arrive: [] lost, 2 items duplicated.
        ``now`` (s) is only needed for partitions."""
        if self.partitioned(now):
            return []
        rng = self._rng
        copies = 2 if rng.random() < self.dup else 1
        out = []
        for _ in range(copies):
            if rng.random() < self.loss:
                continue
            d = self.delay + (rng.random() * self.jitter if self.jitter else 0.0)
            if rng.random() < self.reorder:
                d += self.reorder_delay
            out.append(d)
        return out


class SimNetwork:
    """In-memory datagram network on a virtual clock.

    Nodes are sans-I/O objects with ``receive_datagram(data, addr, now)``,
    ``datagrams_to_send(now)``, ``get_timer()`` and ``handle_timer(now)`` (a transport
    ``Endpoint``, or anything shaped like it), attached under an address. ``on_deliver(dst, out)``
    receives what ``receive_datagram`` returned. Garbage can be injected with ``inject``.
    """

    def __init__(self, plan: FaultPlan | None = None,
                 on_deliver: Callable[[Addr, Any], None] | None = None) -> None:
        self.plan = plan or FaultPlan()
        self.now = 0.0
        self.nodes: dict[Addr, Any] = {}
        self._queue: list[tuple[float, int, Addr, Addr, bytes]] = []
        self._counter = 0
        self.on_deliver = on_deliver
        self.datagrams = 0

    def attach(self, addr: Addr, node: Any) -> None:
        """Put ``node`` on the network at ``addr``."""
        self.nodes[addr] = node

    def inject(self, src: Addr, dst: Addr, data: bytes, delay: float = 0.0) -> None:
        """Deliver raw ``data`` from ``src`` to ``dst`` after ``delay`` s, bypassing the plan."""
        self._push(self.now + delay, src, dst, data)

    def _push(self, at: float, src: Addr, dst: Addr, data: bytes) -> None:
        self._counter += 1
        heapq.heappush(self._queue, (at, self._counter, src, dst, data))

    def flush(self) -> None:
        """Collect every node's due datagrams and schedule them through the fault plan."""
        for src, node in self.nodes.items():
            for data, dst in node.datagrams_to_send(self.now):
                self.datagrams += 1
                for d in self.plan.plan(self.now):
                    self._push(self.now + d, src, dst, data)

    def step(self) -> bool:
        """Advance the clock to the next delivery or timer and process it.

        Returns False when nothing is left to do (no datagram in flight, no timer armed).
        """
        self.flush()
        times = [t for t in (n.get_timer() for n in self.nodes.values()) if t is not None]
        t_timer = min(times) if times else None
        t_net = self._queue[0][0] if self._queue else None
        if t_timer is None and t_net is None:
            return False
        if t_net is not None and (t_timer is None or t_net <= t_timer):
            at, _, src, dst, data = heapq.heappop(self._queue)
            self.now = max(self.now, at)
            node = self.nodes.get(dst)
            if node is not None:
                out = node.receive_datagram(data, src, self.now)
                if self.on_deliver is not None:
                    self.on_deliver(dst, out)
        else:
            self.now = max(self.now, t_timer)
            for node in self.nodes.values():
                node.handle_timer(self.now)
        return True

    def run(self, until: float = 60.0, max_events: int = 1_000_000) -> None:
        """Step until quiet, the virtual clock passes ``until`` s, or ``max_events`` events."""
        for _ in range(max_events):
            if self.now > until or not self.step():
                return
