"""Admission: who may take a seat in a lobby, and in which order (protocol.md §C2.1-§C2.2).

The first half of the lobby (``p2p/lobby.py``), before the setup is fixed:

* host — JOIN checks (channel key, signature, version, one seat per key, a repeated JOIN may
  move the player's address only over a channel keyed with its own key), LEAVE, answering a
  PROBE (join by code, at most ``PROBE_RATE`` per second, once per ``PROBE_REPEAT_S`` per
  joiner key), STATUS to everyone in the lobby,
  REJECT with a code; and, when all seats are taken, the seat assignment: players ordered by
  Ed25519 public key bytes ascending, sent as the PROPOSAL.
* joiner — which STATUS, REJECT and PROPOSAL come from the host (address, channel key, a
  signature by the advertised key, or the advertised fingerprint, or trust on first use), and
  the join-by-code probe (protocol.md §N3.1).

``Admission`` is a mixin of ``Lobby``: its handlers read and change the lobby's phase, queue
and counters and call the lobby's ``_drop``, ``_abort``, ``_misbehaved`` and
``_enter_signing``; the admission state (who joined, the host's keys, the probe budget) is
its own, set up by ``_init_admission``. Sans-I/O like the lobby: ``now`` is an argument.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import const as C
from .beacon import HashChain, new_secret, seed_commitment
from .identity import fingerprint_of
from .join_code import join_code_tag
from .ratelimit import TokenBucket
from .wire import (MSG_JOIN, MSG_PROPOSAL, MSG_REJECT, MSG_STATUS, Envelope, Join, Player, Proposal, Reject,
                   Setup, Status, seal_message)

#: The lobby's first phases (``p2p.lobby`` has them all): a joiner before the host's STATUS,
#: then everyone until the setup is proposed.
JOINING = "joining"
WAITING = "waiting"

#: Host: at most this many members joined from one source address (host, port) that never
#: signed a setup of this lobby (protocol.md §C2.2 step 7). An honest peer has one socket and one
#: key; two leave room for a player who restarted with a fresh key.
MAX_UNCONFIRMED_PER_ADDR = 2

#: The signing phases (``p2p.lobby``): a STATUS or REJECT of the host may end them (§C2.2 step 7).
_SETUP_PHASES = ("signing", "revealing")

# --- events ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class LobbyStatus:
    """Seats taken so far (``taken`` of ``seats``), with the players' names."""

    edition: str
    seats: int
    taken: int
    names: tuple


@dataclass(frozen=True)
class _PlayerEvent:
    """A player, by its name and its key's ``fingerprint`` (16 hex digits)."""

    name: str
    fingerprint: str


class PlayerJoined(_PlayerEvent):
    """Host only: a player joined."""


class PlayerLeft(_PlayerEvent):
    """Host only: a player left before the setup was proposed."""


class PlayerRemoved(_PlayerEvent):
    """Host only: a player did not confirm the setup in time (its SETUP_SIG or SEED missing at
    ``SETUP_TIMEOUT``, or no fresh JOIN after a new round): removed and banned from this lobby
    (protocol.md §C2.2 step 7). The waiting room shows "<name> removed: did not confirm"."""


#: English text of each REJECT code (protocol.md §C2.1); ui translates it.
REJECT_TEXT = {
    C.REJECT_FULL: "the lobby is full",
    C.REJECT_VERSION: "protocol version mismatch",
    C.REJECT_OTHER_KEYS: "already joined with other keys",
}


class Admission:
    """The lobby's admission handlers and state (mixed into ``p2p.lobby.Lobby``).

    Its own state: ``_joined`` (host: public key -> (Player, address), join order), ``_endpoint``,
    ``_probes`` (host); ``_host_addr``, ``_host_keys``, ``_host_fp``, ``_code_tag``,
    ``_demo_seed`` (joiner). What it uses of the lobby: ``identity``, ``role``, ``me``,
    ``game_id``, ``phase``, ``_deadline``, ``edition``/``seats``/``options``,
    ``chain``/``chain_secret``/``_seed_secret`` (re-derived for a demo join by code), the queues
    ``_out``/``_events``, ``stats``, and ``_drop``, ``_abort``, ``_enter_signing``."""

    def _init_admission(self, now: float, demo_seed: bytes | None) -> None:
        # host only
        self._joined: dict[bytes, tuple[Player, Any]] = {}
        self._endpoint: Any = None
        # joiner only
        self._host_addr: Any = None
        #: The host's (Ed25519, X25519) public keys, from the advert or the first signed STATUS.
        self._host_keys: tuple[bytes, bytes] | None = None
        self._host_fp: str | None = None
        #: Join by code (protocol.md §N3.1): the code's 50-bit tag while we probe for the game
        #: id (None once known, or for any other join).
        self._code_tag: int | None = None
        self._demo_seed = demo_seed
        # host only: PROBE answers allowed (PROBE_RATE per second, as many in a burst)
        self._probes = TokenBucket(C.PROBE_RATE, C.PROBE_RATE, now)
        # host only: joiner key -> when we last answered its PROBE (PROBE_REPEAT_S; at most
        # PROBE_MEMORY keys, the oldest forgotten first)
        self._probed: dict[bytes, float] = {}
        # host only (protocol.md §C2.2 step 7): keys removed for not confirming a setup (never
        # seated again in this lobby), members whose entry predates the current round (they
        # must JOIN again with a fresh seed commitment before the next PROPOSAL), and members
        # that signed a setup at least once (not counted by the per-address cap)
        self._banned: set[bytes] = set()
        self._stale: set[bytes] = set()
        self._confirmed: set[bytes] = set()

    def _join_msg(self) -> bytes:
        # Our JOIN; with the probe game id (zero) while joining by code: a PROBE.
        return seal_message(self.identity, MSG_JOIN, Join(self.game_id, C.PROTOCOL_VERSION, self.me))

    def _on_probe(self, env: Envelope, msg: Any, addr: Any, now: float) -> None:
        """Host: a PROBE (JOIN with a zero game id) asks who we are: answer our signed STATUS
        (or REJECT full once the lobby closed), at most PROBE_RATE per second over all sources
        (that bounds what spoofed sources make us send), and at most once per PROBE_REPEAT_S
        per joiner key, checked first and for free: a PROBE replayed at any rate from spoofed
        sources then takes one answer a second, not the whole budget that honest joiners by
        code need (H37). The key is remembered only once the PROBE's signature holds, so a
        forged PROBE naming someone else's key cannot silence it."""
        pk = msg.player.public_key
        if now - self._probed.get(pk, -C.PROBE_REPEAT_S) < C.PROBE_REPEAT_S:
            self._drop("probe_repeat")
            return
        if not self._probes.take(now):
            self._drop("probe_limit")
            return
        if not env.verify(pk):
            self._drop("bad_signature")
            return
        self._probed.pop(pk, None)
        self._probed[pk] = now
        if len(self._probed) > C.PROBE_MEMORY:
            del self._probed[next(iter(self._probed))]
        self.stats["probes"] = self.stats.get("probes", 0) + 1
        if self.phase == WAITING:
            self._out.append((addr, self._status_msg()))
        else:
            self._reject(addr, msg.player.public_key, C.REJECT_FULL)

    def _on_probe_answer(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        """Joiner by code: the host's STATUS/REJECT names the game id and the host's keys; they
        must give the code's tag (else ``not_host``: someone else answered), then the usual
        host checks (address, channel key, signature). Then the real JOIN goes out."""
        if join_code_tag(msg.game_id, msg.host_pk) != self._code_tag:
            self._drop("not_host")
            return
        if env.mtype == MSG_REJECT and msg.joiner_pk != self.identity.public_key:
            self._drop("not_for_us")
            return
        if not self._from_host(env, addr, peer_key, (msg.host_pk, msg.host_xk)):
            return
        self._code_tag = None
        self.game_id = msg.game_id
        if self._demo_seed is not None:  # demo secrets are derived from the game id
            self.chain_secret = new_secret(self._demo_seed, b"chain", self.game_id)
            self.chain = HashChain(self.chain_secret, self.chain.length)
            self._seed_secret = new_secret(self._demo_seed, b"seed", self.game_id)
            self.me = self.me._replace(chain_head=self.chain.head, seed_commit=seed_commitment(self._seed_secret))
        if env.mtype == MSG_REJECT:
            self._on_reject(env, msg, addr, now, peer_key)
            return
        self._out.append((self._host_addr, self._join_msg()))

    def _on_join(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        p = msg.player
        if self.role != "host":
            self._drop("not_host")
            return
        if peer_key is not None and peer_key != p.x25519_key:
            self._drop("key_mismatch")  # the channel's key must be the one the player asks to be seated with
            return
        if not env.verify(p.public_key):
            self._drop("bad_signature")
            return
        if msg.version != C.PROTOCOL_VERSION:
            self._reject(addr, p.public_key, C.REJECT_VERSION)
            return
        if p.public_key in self._banned:
            self._drop("banned")
            self._reject(addr, p.public_key, C.REJECT_FULL)
            return
        known = self._joined.get(p.public_key)
        if (known is not None and p.public_key in self._stale and self.phase == WAITING
                and peer_key == p.x25519_key == known[0].x25519_key):
            # A member's fresh entry for the new round (§C2.2 step 7), over its own keyed channel:
            # a replayed JOIN of an older round cannot come that way (the transport deduplicates).
            self._stale.discard(p.public_key)
            if not self._stale:
                self._deadline = None  # nobody left to wait for (the stale members' JOIN_TIMEOUT)
            self._joined[p.public_key] = (p, addr)
            self._broadcast_status()
            self._maybe_propose(now)
            return
        if known is not None and known[0] == p:
            if addr != known[1] and peer_key != p.x25519_key:
                # A replayed JOIN from elsewhere would move the player's address (and cut it off):
                # only a channel keyed with the player's own X25519 key may do that.
                self._drop("moved_unproven")
                return
            if self.phase == WAITING:  # a repeated join: refresh its address, answer again
                self._joined[p.public_key] = (p, addr)
                self._out.append((addr, self._status_msg()))
            return
        if self.phase != WAITING or known is not None:
            self._reject(addr, p.public_key, C.REJECT_FULL if known is None else C.REJECT_OTHER_KEYS)
            return
        if sum(1 for k, (_, a) in self._joined.items() if a == addr and k not in self._confirmed) \
                >= MAX_UNCONFIRMED_PER_ADDR:
            self._drop("address_cap")  # one socket, many fresh keys: ghosts (§C2.2 step 7)
            self._reject(addr, p.public_key, C.REJECT_FULL)
            return
        self._joined[p.public_key] = (p, addr)
        self._events.append(PlayerJoined(p.name, fingerprint_of(p.public_key)))
        self._broadcast_status()
        self._maybe_propose(now)

    def _maybe_propose(self, now: float) -> None:
        # Every seat taken, every member's entry of the current round (none stale).
        if self.phase == WAITING and len(self._joined) == self.seats and not self._stale:
            self._propose(now)

    def _remove(self, pks: list[bytes]) -> None:
        """Host: remove and ban the members ``pks`` (they did not confirm in time, §C2.2 step
        7): REJECT (code 1) to each, ``PlayerRemoved`` for each, counted in ``removed``."""
        for pk in pks:
            p, addr = self._joined.pop(pk)
            self._banned.add(pk)
            self._stale.discard(pk)
            self._reject(addr, pk, C.REJECT_FULL)
            self._events.append(PlayerRemoved(p.name, fingerprint_of(pk)))
            self.stats["removed"] = self.stats.get("removed", 0) + 1

    def _on_leave(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        if self.role != "host" or self.phase != WAITING:
            self._drop("wrong_phase")
            return
        # Only the player joined from this address may leave, with its own key: one signature
        # check per LEAVE, whoever sends it.
        pk = next((k for k, (p, a) in self._joined.items() if a == addr and k != self.identity.public_key), None)
        if pk is None:
            self._drop("not_joined")
            return
        p = self._joined[pk][0]
        if (peer_key is not None and peer_key != p.x25519_key) or not env.verify(pk):
            self._drop("bad_signature")
            return
        del self._joined[pk]
        self._stale.discard(pk)
        self._events.append(PlayerLeft(p.name, fingerprint_of(pk)))
        self._broadcast_status()
        self._maybe_propose(now)

    def _from_host(self, env: Envelope, addr: Any, peer_key: bytes | None, claimed: tuple | None = None,
                   round_end: bool = False) -> bool:
        """Joiner: is this message from the host (address, channel key, signature by the
        host's key)? ``claimed``: the (pk, xk) a STATUS names, adopted if we knew no key yet and
        it matches the advert's fingerprint (or nothing was advertised). ``round_end``: a
        STATUS/REJECT that may end the signing phases (§C2.2 step 7): only over the host's
        keyed channel, whose transport drops replays and delivers in order."""
        if self.role != "joiner" or addr != self._host_addr:
            self._drop("not_host")
            return False
        if self.phase not in (JOINING, WAITING) and not (
                round_end and self.phase in _SETUP_PHASES and self._host_keys is not None
                and peer_key == self._host_keys[1]):
            self._drop("wrong_phase")
            return False
        keys = self._host_keys
        if keys is None:
            if claimed is None:
                self._drop("unverifiable")  # no key to check it with: a hint at most, ignored
                return False
            if self._host_fp is not None and fingerprint_of(claimed[0]) != self._host_fp:
                self._drop("not_host")
                return False
            keys = claimed
        elif claimed is not None and claimed != keys:
            self._drop("not_host")
            return False
        if (peer_key is not None and peer_key != keys[1]) or not env.verify(keys[0]):
            self._drop("bad_signature")
            return False
        self._host_keys = keys
        return True

    def _on_status(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        # A STATUS with a free seat during our signing phases is the host's new round (§C2.2
        # step 7); the last STATUS before a PROPOSAL had every seat taken and came before it.
        new_round = msg.taken < msg.seats
        if not self._from_host(env, addr, peer_key, (msg.host_pk, msg.host_xk), round_end=new_round):
            return
        if self.phase in _SETUP_PHASES:
            self._new_round(now)
            self._out.append((self._host_addr, self._join_msg()))  # our fresh entry
        self.phase = WAITING
        self.edition, self.seats = msg.edition, msg.seats
        self._deadline = None
        self._events.append(LobbyStatus(msg.edition, msg.seats, msg.taken, msg.names))

    def _on_reject(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        if msg.joiner_pk != self.identity.public_key:
            self._drop("not_for_us")  # a REJECT the host sent someone else, replayed
            return
        if not self._from_host(env, addr, peer_key, (msg.host_pk, msg.host_xk), round_end=True):
            return
        if self.phase in _SETUP_PHASES:
            self._abort("removed by the host: we did not confirm the setup in time", reject_code=msg.code)
            return
        text = REJECT_TEXT.get(msg.code, f"refused (code {msg.code})")
        self._abort(f"rejected by the host: {text}", reject_code=msg.code)

    def _status_msg(self) -> bytes:
        names = [p.name for p, _ in self._joined.values()]
        return seal_message(self.identity, MSG_STATUS, Status(self.game_id, self.edition, self.seats, len(names),
                                                              tuple(names), self.identity.public_key,
                                                              self.identity.x25519_public_key))

    def _reject(self, addr: Any, joiner_pk: bytes, code: int) -> None:
        self._out.append((addr, seal_message(self.identity, MSG_REJECT, Reject(
            self.game_id, joiner_pk, code, self.identity.public_key, self.identity.x25519_public_key))))

    def _broadcast_status(self) -> None:
        raw = self._status_msg()
        for pk, (p, addr) in self._joined.items():
            if pk != self.identity.public_key:
                self._out.append((addr, raw))
        names = tuple(p.name for p, _ in self._joined.values())
        self._events.append(LobbyStatus(self.edition, self.seats, len(names), names))

    def _propose(self, now: float) -> None:
        entries = sorted(self._joined.values(), key=lambda e: e[0].public_key)
        setup = Setup(C.PROTOCOL_VERSION, self.game_id, self.edition, self.seats, self.chain.length,
                      self.options, tuple(p for p, _ in entries))
        sb = setup.encode()
        endpoints = tuple(tuple(a) if isinstance(a, (tuple, list)) else a for _, a in entries)
        wire_eps = tuple((str(a[0]), int(a[1])) for a in endpoints)
        raw = seal_message(self.identity, MSG_PROPOSAL, Proposal(self.game_id, sb, setup, wire_eps))
        for pk, (p, addr) in self._joined.items():
            if pk != self.identity.public_key:
                self._out.append((addr, raw))
        self._enter_signing(sb, setup, endpoints, now)
