"""Signatures checked when used (protocol.md §C3.7): STEP messages applied on the strength of
their keyed channel's MAC, their Ed25519 signature checked before they are ever used as evidence
or sent to anyone.

Every STEP between seats arrives on a transport channel keyed with the pairwise X25519 key of
the two seats' setup keys (§N2.2): the channel's HMAC already tells the receiver that the seat's
own endpoint sent it. The signature matters only when the message leaves the receiver, as
transferable evidence (complaints, digest disputes, catch-up pages, spectators, the log's
final attestation). So a STEP of seat ``s`` that arrives on the channel keyed with ``s``'s
setup X25519 key is *deferred*: applied after every other check, its signature still unchecked.
It is checked (``check``, ``sweep``) before any such use; and every deferred one is checked
before our final attestation is signed (§C3.5), so a finished log holds none unchecked.

One ``StepAuth`` per session. It owns

* which channel key is which seat's (``seat_via``): the setup's X25519 keys, ours and any key
  two seats share excluded (an ambiguous channel proves nothing about the seat);
* the deferred messages, ``(step, seat) -> envelope``, oldest first;
* the seats caught once with a bad signature under a valid MAC (``suspect``): never deferred
  again, their every later message verified at once;
* the bad records found after they were applied (``bad``: step -> seats), which the session
  never serves.

It never reads a clock nor sends anything; the session decides what a bad signature means for a
message it holds (``LockstepSession._unsound``).
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

from .history import LogRecords
from .identity import verify_many
from .wire import DOMAINS, Envelope

__all__ = ["StepAuth", "HistoryUpTo", "MAX_DEFERRED"]

#: Deferred messages kept unchecked at most; past it every new deferral checks the two oldest,
#: so the checks stay a steady trickle (never a burst of hundreds in the receive path: that
#: stalled 8-peer tables under load, bench_rows A/B) and memory stays flat.
MAX_DEFERRED = 64


class StepAuth:
    """Deferred STEP signatures of one session (module docstring).

    ``pubkeys``: every seat's Ed25519 public key (setup order, 32 bytes each); ``xkeys``: every
    seat's X25519 public key from the setup; ``my_seat``: ours (never deferred: we signed it)."""

    def __init__(self, pubkeys: Sequence[bytes], xkeys: Sequence[bytes], my_seat: int) -> None:
        self._pubkeys = list(pubkeys)
        count: dict[bytes, int] = {}
        for xk in xkeys:
            count[xk] = count.get(xk, 0) + 1
        #: Channel key -> seat, for the keys that name exactly one other seat.
        self._seat_of = {xk: i for i, xk in enumerate(xkeys)
                         if i != my_seat and count[xk] == 1 and isinstance(xk, bytes) and len(xk) == 32}
        self._deferred: dict[tuple[int, int], Envelope] = {}
        #: Seats that signed garbage under a valid MAC once: verified at once from then on.
        self.suspect: set[int] = set()
        #: Applied records found with a bad signature: step -> seats (never served, §C3.7).
        self.bad: dict[int, set[int]] = {}
        self.stats: dict[str, int] = dict.fromkeys(("deferred", "checked_later", "bad_later", "swept"), 0)

    # -- receipt --

    def seat_via(self, via: bytes | None) -> int | None:
        """The seat whose setup X25519 key keys the channel ``via`` (the key the transport
        checked the datagram's MAC with, ``Endpoint.peer_key``), or None (no keyed channel, a
        stranger's key, ours, or a key two seats share)."""
        return None if via is None else self._seat_of.get(via)

    def may_defer(self, seat: int, via: bytes | None) -> bool:
        """True if ``seat``'s STEP that came over the channel keyed with ``via`` may be applied
        with its signature unchecked: ``via`` is that seat's own setup key and the seat never
        signed garbage under a valid MAC before."""
        return via is not None and self._seat_of.get(via) == seat and seat not in self.suspect

    def defer(self, step: int, seat: int, env: Envelope) -> list[tuple[int, int, Envelope]]:
        """Hold ``env`` (``seat``'s STEP of ``step``, every check but the signature passed) as
        deferred. Past ``MAX_DEFERRED`` unchecked, the two oldest (received first) are checked
        now; returns those that failed (usually [])."""
        self._deferred[step, seat] = env
        self.stats["deferred"] += 1
        if len(self._deferred) <= MAX_DEFERRED:
            return []
        bad = []
        for _ in range(2):
            key = next(iter(self._deferred))  # insertion order: the oldest received
            old = self._deferred.pop(key)
            self.stats["swept"] += 1
            if not self._verify(key[0], key[1], old):
                bad.append((key[0], key[1], old))
        return bad

    # -- checks --

    def deferred(self, step: int, seat: int) -> Envelope | None:
        """``seat``'s deferred message of ``step``, or None (checked, or never deferred)."""
        return self._deferred.get((step, seat))

    def check(self, step: int, seat: int, env: Envelope) -> bool:
        """True unless ``env`` is ``seat``'s deferred message of ``step`` and its signature is bad
        (checked now; a message never deferred was verified on receipt). A failure makes the seat
        suspect; the caller handles the message (``LockstepSession._unsound``)."""
        held = self._deferred.get((step, seat))
        if held is None or held.raw != env.raw:
            return True
        del self._deferred[step, seat]
        return self._verify(step, seat, held)

    def forget(self, step: int, seat: int) -> None:
        """``seat``'s message of ``step`` is no longer held (cleared, superseded): nothing to check."""
        self._deferred.pop((step, seat), None)

    def pending(self) -> int:
        """How many deferred messages are unchecked."""
        return len(self._deferred)

    def sweep(self, upto: int | None = None, limit: int | None = None) -> list[tuple[int, int, Envelope]]:
        """Check the deferred messages of steps ``<= upto`` (all by default), oldest first, at most
        ``limit`` of them. Returns the ones whose signature is bad as (step, seat, envelope)."""
        keys = sorted(k for k in self._deferred if upto is None or k[0] <= upto)[:limit]
        envs = [self._deferred.pop(key) for key in keys]
        # Checked in one call on every core (identity.verify_many, §C9.2 'Bulk signature check'):
        # ``_verify`` below then finds the good ones remembered; same answers, same order.
        verify_many([(self._pubkeys[key[1]], DOMAINS[env.mtype], env.body, env.sig) for key, env in zip(keys, envs)])
        bad = []
        for key, env in zip(keys, envs):
            self.stats["swept"] += 1
            if not self._verify(key[0], key[1], env):
                bad.append((key[0], key[1], env))
        return bad

    def _verify(self, step: int, seat: int, env: Envelope) -> bool:
        self.stats["checked_later"] += 1
        if env.verify(self._pubkeys[seat]):
            return True
        self.stats["bad_later"] += 1
        self.suspect.add(seat)
        return False

    # -- bad applied records --

    def mark_bad(self, step: int, seat: int) -> None:
        """``seat``'s applied message of ``step`` has a bad signature: that step's record is never
        served (catch-up, spectators)."""
        self.bad.setdefault(step, set()).add(seat)

    def first_bad(self) -> int | None:
        """The first step whose applied record holds a bad signature, or None."""
        return min(self.bad) if self.bad else None


class HistoryUpTo:
    """A view of the session's records (``LockstepSession.history()``: a ``History``) that ends
    before the first record of step ``step``: what we serve spectators once a record of ours
    was found with a bad signature (§C3.7). ``len``, ``iter_from`` and ``with_head`` are what
    the watch service and ``spectate.WatchServer.outgoing`` use."""

    def __init__(self, history: Any, step: int) -> None:
        self._history = history
        first = history.first(step)
        self._n = len(history) if first is None else first

    def __len__(self) -> int:
        return self._n

    def iter_from(self, i: int) -> Iterator[tuple[int, bytes, int]]:
        """The records (kind, payload, step) from index ``i`` on, up to the cut."""
        for n, rec in enumerate(self._history.iter_from(i), start=i):
            if n >= self._n:
                return
            yield rec

    def first(self, step: int) -> int | None:
        """Index of the first record of ``step`` if before the cut, else None."""
        i = self._history.first(step)
        return i if i is not None and i < self._n else None

    def with_head(self, kind: int, payload: bytes) -> LogRecords:
        """The whole log as (kind, payload) pairs up to the cut: the header record, then this
        view (like ``History.with_head``; ``LogRecords`` reads only ``len`` and ``iter_from``)."""
        return LogRecords((kind, payload), self)  # type: ignore[arg-type]
