"""Host: which join-code PROBEs may be answered, before their signature is checked (protocol.md
§N3.1, rules 0-2 of ``admission.Admission.on_probe``), and the PROBE kept per unconfirmed address.

A PROBE (a JOIN with the zero game id) is a stranger asking who we are; answering it costs a
signature check and a signed STATUS, so it passes, in this order: a confirmed channel (else it
is kept, unchecked, until the address's RESPONSE confirms it: ``kept``), once per
``PROBE_REPEAT_S`` per joiner key and source address, ``PROBE_RATE`` per second per source host.
The lobby's ``Admission`` checks the signature, remembers the answer (``answered``) and answers.
Sans-I/O: ``now`` is an argument (seconds).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable

from . import const as C
from .ratelimit import TokenBucket, bucket_in

__all__ = ["PROBE_KEEP_S", "PROBE_KEPT", "PROBE_KEPT_BYTES", "ProbeGate"]

#: The last PROBE dropped as unconfirmed per source address (<= PROBE_KEPT, oldest forgotten, none
#: over PROBE_KEPT_BYTES; ~260 B) is answered when its RESPONSE confirms it within PROBE_KEEP_S.
PROBE_KEPT = 32
PROBE_KEPT_BYTES = 512
PROBE_KEEP_S = 2.0


class ProbeGate:
    """The host's probe budget: per source host a ``PROBE_RATE``/s bucket (``PROBE_MEMORY`` hosts,
    least recently used forgotten), per (joiner key, source address) when it was last answered
    (``PROBE_MEMORY``, oldest forgotten), per source address the last PROBE dropped as unconfirmed
    (``PROBE_KEPT``). Counters go to ``drop`` (a reason string: the lobby's ``drop``)."""

    def __init__(self, drop: Callable[[str], None]) -> None:
        self._drop = drop
        self._probes: OrderedDict[Any, TokenBucket] = OrderedDict()
        self._probed: dict[tuple[bytes, Any], float] = {}
        self._kept: dict[Any, tuple[Any, Any, float]] = {}

    def admits(self, env: Any, msg: Any, addr: Any, now: float, confirmed: bool) -> bool:
        """True if the PROBE ``msg`` (its envelope ``env``, from ``addr``) goes on to the signature
        check: rules 0-2 of §N3.1. 0: over a ``confirmed`` channel only, else dropped
        (``probe_unconfirmed``) and kept if at most ``PROBE_KEPT_BYTES`` (a kept one of ``addr`` is
        cleared either way); 1: its key not answered at ``addr`` within ``PROBE_REPEAT_S``
        (``probe_repeat``); 2: a token of its source host's bucket (``probe_limit``)."""
        kept = self._kept
        kept.pop(addr, None)
        if not confirmed:
            self._drop("probe_unconfirmed")
            if len(env.raw) <= PROBE_KEPT_BYTES:
                kept[addr] = (env, msg, now)
                if len(kept) > PROBE_KEPT:
                    del kept[next(iter(kept))]
            return False
        if now - self._probed.get((msg.player.public_key, addr), -C.PROBE_REPEAT_S) < C.PROBE_REPEAT_S:
            self._drop("probe_repeat")
            return False
        host = addr[0] if isinstance(addr, (tuple, list)) else addr  # its IP: one machine, all its ports
        if not bucket_in(self._probes, host, C.PROBE_RATE, C.PROBE_RATE, now, C.PROBE_MEMORY).take(now):
            self._drop("probe_limit")
            return False
        return True

    def answered(self, pk: bytes, addr: Any, now: float) -> None:
        """A PROBE signed by ``pk`` (checked) is answered at ``addr`` now: rule 1 holds its next
        copies there for ``PROBE_REPEAT_S``. Only then is the key remembered, so a forged PROBE
        naming someone else's key cannot silence it."""
        seen = (pk, addr)
        self._probed.pop(seen, None)
        self._probed[seen] = now
        if len(self._probed) > C.PROBE_MEMORY:
            del self._probed[next(iter(self._probed))]

    def kept(self, addr: Any, now: float) -> tuple[Any, Any] | None:
        """The (envelope, message) of the PROBE kept from ``addr`` less than ``PROBE_KEEP_S`` ago,
        now no longer kept; None if none (its channel was just confirmed: it goes through
        ``admits`` again, confirmed)."""
        probe = self._kept.pop(addr, None)
        if probe is None or now - probe[2] > PROBE_KEEP_S:
            return None
        return probe[0], probe[1]
