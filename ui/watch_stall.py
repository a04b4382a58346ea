"""A spectator's stall probe (protocol.md §N10 'A stalled server', H174-3).

A seat a spectator follows may answer every renewal with its signed empty RECORDS (the sign of
life that tells a quiet game from a gone server) and serve nothing more while the game goes
on: the silence failover (``WATCH_SILENCE_S``) never fires, and the view stays frozen. A quiet
game looks the same from one seat — a player may think for minutes — so the spectator asks
another seat rather than leaving its own on a guess:

* **When.** ``WATCH_STALL_S`` = 14 s (two silences) after the last new step we received (our
  last STEP record's step grew) or after our last probe or switch, whichever is later; so at
  most one probe per ``WATCH_STALL_S``, for as long as no new step comes. None while a resync is
  under way; one not aligned ``stall_s`` after its switch counts as a silence (the driver follows
  the next seat): a seat that answers with a step beyond ours, then only its empty RECORDS (each
  "heard"), holds the spectator at most that long (RV16-E F1).
* **Whom.** One seat found on DNS-SD, other than the one we follow and never one that lied to
  us (``WatchDriver.bad``), the one probed least recently (never probed first, then the lowest
  seat), at its next address; its channel keyed with its setup X25519 key (as a switch does),
  unless that address is our server's (a forged advert: nothing sent, its key kept, RV16-E F2).
  One probe's channel at a time: the driver forgets the previous one's (RV16-E F4).
* **What.** Our own WATCH with ``have`` = the ``have`` a switch to that seat would ask
  (``resync_have``: our last STEP record's number + offset − ``RESYNC_MARGIN``, at least 1),
  sent once and never renewed: the seat subscribes us, sends its empty RECORDS, then (once our
  channel confirmed) its records from ``have``; the place lapses after ``WATCH_TTL_S``.
* **Switch.** The probe's answer is the first RECORDS from that address, signed by that seat's
  key, of our game, holding records, from a number no greater than the ``have`` we asked. If it
  holds a STEP record of a step beyond our last one, we follow that seat (a switch as in
  Failover, from our last step) and that RECORDS is the first batch of the resync; else the
  probe is over (later batches of that subscription are ignored: taking one as a resync's first
  would restart it from the header). Anything else from there (its empty answer, a RECORDS that
  does not open or is not that seat's, chat it relays) is ignored.

Nobody is named: a seat whose log is behind is not a liar. Every seat holding the same steps
(a quiet game) never makes the spectator switch. Cost: one WATCH per ``WATCH_STALL_S`` while
stalled, and of the probed seat one empty answer and at most the records from ``have`` on.
"""

from __future__ import annotations

from typing import Any

from p2p.errors import WireError
from p2p.gamelog import KIND_STEP, STEP_RECORD

#: Seconds without a new step (and since our last probe or switch) before we probe.
WATCH_STALL_S = 14.0


def step_of(kind: int, payload: bytes) -> int | None:
    """The step number of a STEP record (None for another kind or one that does not parse)."""
    if kind != KIND_STEP:
        return None
    try:
        return STEP_RECORD.decode(payload).step
    except WireError:
        return None


def last_step(records: list) -> tuple[int, int]:
    """(number, step) of the last STEP record of ``records`` (``[(kind, payload)]``) that parses;
    (0, -1) if none (the header alone)."""
    for i in range(len(records) - 1, -1, -1):
        step = step_of(*records[i])
        if step is not None:
            return i, step
    return 0, -1


def resync_have(records: list, offset: int, margin: int) -> int:
    """The ``have`` a switch asks (``p2p.spectate.WatchClient.switch``): our last STEP record's
    number + ``offset`` − ``margin``, at least 1."""
    return max(1, last_step(records)[0] + offset - margin)


class StallProbe:
    """The probe's state (see the module doc). ``stall_s``: seconds, ``WATCH_STALL_S`` unless
    given. ``stats``: ``probes`` sent, ``ahead`` (answers that made us switch), ``ignored``."""

    def __init__(self, stall_s: float = WATCH_STALL_S) -> None:
        self.stall_s = stall_s
        self.step = -1  # the last step we received
        self.since = 0.0  # clock of that step, or of our last probe or switch if later
        self.target: tuple[Any, bytes, int] | None = None  # (address, seat key, have) of the probe awaiting its answer
        self._probed: list[bytes] = []  # seat keys probed, least recently first
        self.stats = dict.fromkeys(("probes", "ahead", "ignored"), 0)

    def progress(self, now: float, step: int) -> None:
        """We hold records up to step ``step`` now: a new step restarts the stall clock."""
        if step > self.step:
            self.step, self.since = step, now

    def restart(self, now: float, step: int) -> None:
        """We switched servers (our last step ``step``): the new one gets ``stall_s``; any
        probe answer still to come is ignored."""
        self.step, self.since, self.target = step, now, None

    def due(self, now: float) -> bool:
        """True when no new step came for ``stall_s`` since the later of that step and our last
        probe or switch."""
        return now - self.since >= self.stall_s

    def pick(self, seats: list[int], key_of: Any) -> int | None:
        """Of ``seats`` (found, never lied, not our server), the one probed least recently
        (never probed first, then the lowest); None if none. ``key_of(seat)``: its setup key."""
        order = {pk: i for i, pk in enumerate(self._probed)}
        return min(seats, key=lambda s: (order.get(key_of(s), -1), s), default=None)

    def sent(self, now: float, addr: Any, pk: bytes, have: int) -> None:
        """We sent our probe WATCH (``have``) to seat key ``pk`` at ``addr``: next probe ``stall_s``
        later."""
        if pk in self._probed:
            self._probed.remove(pk)
        self._probed.append(pk)
        self.target, self.since = (addr, pk, have), now
        self.stats["probes"] += 1

    def probing(self, addr: Any) -> bool:
        """True for a datagram from the address we probed last (the driver hands it here)."""
        return self.target is not None and self.target[0] == addr

    def ahead(self, payload: bytes, game_id: bytes, max_size: int, step: int) -> bytes | None:
        """The probed seat's key if ``payload`` is the probe's answer (a RECORDS of our game signed
        by the seat we probed, holding records, from a number no greater than the ``have`` we
        asked) with a STEP record of a step beyond ``step`` (our last): follow that seat. Else
        None. Any answer ends the probe; anything else is ignored."""
        from p2p.envelope import open_for_game
        from p2p.wire import MSG_RECORDS, decode_records

        if self.target is None:
            return None
        env, msg, _ = open_for_game(payload, MSG_RECORDS, decode_records, max_size, game_id)
        pk = self.target[1]
        if env is None or not msg.records or msg.index > self.target[2] or not env.verify(pk):
            return None
        self.target = None  # one answer per probe
        more = any((s := step_of(kind, p)) is not None and s > step for kind, p in msg.records)
        self.stats["ahead" if more else "ignored"] += 1
        return pk if more else None


__all__ = ["StallProbe", "WATCH_STALL_S", "last_step", "resync_have", "step_of"]
