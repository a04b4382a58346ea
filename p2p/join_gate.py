"""Host: what a stranger's PROBE or JOIN earns before its address proved it receives there
(protocol.md §N3.1 rule 0, §C2.2 step 2 'Seated over a confirmed channel', §N2.6 'Reflection').

A JOIN of a key that is not a member yet (or a member's JOIN naming another endpoint than its
seat's, RV16-C F2), or a PROBE, may come from a spoofed source. Neither is checked, answered nor
seated until the channel it came over is *confirmed* (its address echoed the transport's CHALLENGE,
§N2.6): the PROBE's rules 0-2 are ``ProbeGate``'s (p2p/probe_gate.py); the JOIN's is one rule, kept
here. Each is *kept* (the last one per address) and handled when its channel's RESPONSE confirms it
(``Endpoint.on_confirm``), not at its next copy: one round trip more per joiner. A spoofed JOIN thus
earns the victim's address what a spoofed PROBE does, the transport's CHALLENGE, and seats nobody:
before (RV15-L F3, H167, the *squatter*), one JOIN of a fresh key spoofed from the endpoint E of a
player who had not joined yet seated a ghost at E, and that player's own JOINs were
``endpoint_taken`` until the seats filled.

A kept JOIN is seated at the confirmation only if the channel confirmed is keyed with the key it
came over (``Lobby.channel_key``: the node's ``Endpoint.peer_key``): an introduction of another key
spoofed from E in the joiner's first round trip displaces its channel for a while (§N2.1 step 3),
and the joiner's RESPONSE confirms its own channel, never the ghost's. A JOIN over a plain channel
(a joiner that knows no host key) is not kept: its next copy over the confirmed channel is taken.
Sans-I/O: ``now`` is an argument (seconds).
"""

from __future__ import annotations

from typing import Any, Protocol

from . import const as C
from .probe_gate import ProbeGate

__all__ = ["JOIN_KEEP_S", "JOIN_KEPT", "JOIN_KEPT_BYTES", "JoinGate", "no_channel_key"]

#: The last JOIN of a new member dropped as unconfirmed per source address (<= JOIN_KEPT, oldest
#: forgotten and counted, none over JOIN_KEPT_BYTES: an honest JOIN is <= 404 B, a 32-character
#: name of 4-byte characters and the longest IPv6 endpoint) is handled when its RESPONSE confirms
#: it within JOIN_KEEP_S; the joiner's next copy (0.1-0.2 s later until the STATUS) is kept anew.
JOIN_KEPT = 32
JOIN_KEPT_BYTES = 512
JOIN_KEEP_S = 2.0


class GateLobby(Protocol):
    """What ``JoinGate`` uses of the lobby (``p2p.lobby.Lobby``) and of its ``Admission``."""

    phase: str

    def send(self, addr: Any, raw: bytes) -> None: ...
    def drop(self, reason: str) -> None: ...
    def count(self, key: str) -> None: ...
    def channel_key(self, addr: Any) -> bytes | None: ...


class GateAnswers(Protocol):
    """What ``JoinGate`` uses of ``admission.Admission``: its answers and its JOIN handler."""

    def status_msg(self) -> bytes: ...
    def reject(self, addr: Any, joiner_pk: bytes, code: int, join_raw: bytes | None = None) -> None: ...
    def same_key(self, pk: bytes, addr: Any) -> None: ...
    def on_join(self, env: Any, msg: Any, addr: Any, now: float, peer_key: bytes | None,
                confirmed: bool | None = None) -> None: ...


class JoinGate:
    """The host's gate on strangers: the probe budget (its ``ProbeGate``) and, per source address,
    the last unconfirmed JOIN of a new member (``JOIN_KEPT``). Counters go to the lobby:
    ``join_unconfirmed`` (a drop), ``join_kept`` (handled at its confirmation), ``join_forgotten``
    (pushed out by newer ones), ``join_other_key`` (its address confirmed another key's channel),
    ``join_expired`` (its address confirmed more than ``JOIN_KEEP_S`` after it came)."""

    def __init__(self, lobby: GateLobby, answers: GateAnswers, waiting: str) -> None:
        """``waiting``: the lobby's phase in which a PROBE is answered with a STATUS (else REJECT 1)."""
        self._lobby = lobby
        self._answers = answers
        self._waiting = waiting
        self.probes = ProbeGate(lobby.drop)
        self._kept: dict[Any, tuple[Any, Any, bytes, float]] = {}

    def probe(self, env: Any, msg: Any, addr: Any, now: float, confirmed: bool, peer_key: bytes | None) -> None:
        """A PROBE (JOIN with a zero game id) asks who we are: answer our signed STATUS (or REJECT
        full once the lobby closed), protocol.md §N3.1, in this order (``peer_key``: the X25519 key
        its channel is keyed with, None for a plain one or a kept PROBE):

        - over a channel keyed with another key than the PROBE's ``xk``: dropped (``key_mismatch``,
          as a JOIN; H116: a PROBE replayed over its sender's own channel raised our same-key
          notice, its answer could only go to that sender);

        0. only over a ``confirmed`` channel (its address answered the transport's CHALLENGE,
           §N2.6; else ``probe_unconfirmed``, kept unchecked for rules 1-3 once it confirms,
           ``PROBE_KEPT``): a spoofed source never proves its address, so its PROBEs of fresh keys
           cost no check and no part of honest joiners' budget (H83; before, theirs was one);
        1. at most once per PROBE_REPEAT_S per joiner key and source address (``probe_repeat``,
           H37; a replay from another confirmed address is answered there, never silencing us, H94);
        2. at most PROBE_RATE per second per source host (``probe_limit``): a prober that
           proved its address is answered at that address only, so it spends its own budget;
        3. the signature (``bad_signature``); only then is the key remembered, so a forged
           PROBE naming someone else's key cannot silence it."""
        lob, adm = self._lobby, self._answers
        if peer_key is not None and peer_key != msg.player.x25519_key:
            lob.drop("key_mismatch")
            return
        if not self.probes.admits(env, msg, addr, now, confirmed):  # rules 0-2 (p2p/probe_gate.py)
            return
        pk = msg.player.public_key
        if not env.verify(pk):
            lob.drop("bad_signature")
            return
        adm.same_key(pk, addr)  # answered as any (the joiner stops: SAME_KEY)
        self.probes.answered(pk, addr, now)
        lob.count("probes")
        if lob.phase == self._waiting:
            lob.send(addr, adm.status_msg())
        else:
            adm.reject(addr, pk, C.REJECT_FULL, env.raw)

    def admits(self, env: Any, msg: Any, addr: Any, now: float, peer_key: bytes | None,
               confirmed: bool | None) -> bool:
        """True if the JOIN ``msg`` of a key that is not a member, or of a member naming another
        endpoint than its seat's (its envelope ``env``, from ``addr``, over a channel keyed with
        ``peer_key`` or plain: None) goes on to the signature check and a seat or an answer (§C2.2
        step 2): its channel is ``confirmed``, or None (the caller has no transport to confirm: a
        sans-I/O test's network). Else dropped unchecked and unanswered (``join_unconfirmed``), and
        kept if keyed and at most ``JOIN_KEPT_BYTES``. Any such JOIN from ``addr`` clears the one
        kept from there, even if it is not kept itself (plain, too large) or is taken (confirmed):
        only the newest one from an address is ever handled (RV16-C F5)."""
        kept = self._kept
        kept.pop(addr, None)
        if confirmed is not False:
            return True
        self._lobby.drop("join_unconfirmed")
        if peer_key is not None and len(env.raw) <= JOIN_KEPT_BYTES:
            kept[addr] = (env, msg, peer_key, now)
            if len(kept) > JOIN_KEPT:
                del kept[next(iter(kept))]
                self._lobby.count("join_forgotten")
        return False

    def confirmed(self, addr: Any, now: float) -> bool:
        """The channel to ``addr`` was just confirmed (its RESPONSE, ``Endpoint.on_confirm``): the
        PROBE kept from it less than ``PROBE_KEEP_S`` ago is answered (``probe``, rules 1-3), and
        the JOIN kept from it less than ``JOIN_KEEP_S`` ago over a channel keyed with the key of the
        channel now confirmed (``channel_key``) is handled as if it came now (seated, answered or
        refused), not at its next copy; an older one is dropped (``join_expired``). True if either
        was kept (the caller sends)."""
        lob = self._lobby
        probe = self.probes.kept(addr, now)
        if probe is not None:
            lob.count("probe_kept")
            self.probe(probe[0], probe[1], addr, now, True, None)
        join = self._kept.pop(addr, None)
        if join is None or now - join[3] > JOIN_KEEP_S:
            if join is not None:
                lob.count("join_expired")
            return probe is not None
        key = lob.channel_key(addr)
        if key != join[2]:
            lob.count("join_other_key")  # another key's channel there: its own copy will come
            return probe is not None
        lob.count("join_kept")
        self._answers.on_join(join[0], join[1], addr, now, key, True)
        return True


def no_channel_key(addr: Any) -> bytes | None:
    """``Lobby.channel_key`` of a lobby whose driver told it none: no channel is known keyed."""
    return None
