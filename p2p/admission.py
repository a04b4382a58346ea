"""Admission: who may take a seat in a lobby, and in which order (protocol.md §C2.1-§C2.2).

The first half of the lobby (``p2p/lobby.py``), before the setup is fixed:

* host — JOIN checks (a new member only over a confirmed channel, channel key, signature, version,
  one seat per key, one member per endpoint), LEAVE, answering a
  PROBE (join by code: only from a confirmed address, at most ``PROBE_RATE`` per second per
  source host, once per ``PROBE_REPEAT_S`` per joiner key and address), STATUS to everyone in the
  lobby, REJECT with a code; and, when all seats are taken, the seat assignment: players ordered by
  Ed25519 public key bytes ascending, sent as the PROPOSAL.
* joiner — which STATUS, REJECT and PROPOSAL come from the host (address, channel key, a
  signature by the advertised key, or the advertised fingerprint, or trust on first use), and
  the join-by-code probe (protocol.md §N3.1).

An ``Admission`` is held by its ``Lobby`` (not a mixin): it owns who joined, the host's keys
and its gate on strangers (``JoinGate``, ``p2p/join_gate.py``), reads the lobby's public state
and acts only through the calls of ``LobbyHost`` (send, emit, drop, abort, enter_signing...).
Sans-I/O like the lobby: ``now`` is an argument.
"""

from __future__ import annotations

from typing import Any, Protocol

from . import const as C
from .chat import name_ok, shown_name
from .identity import fingerprint_of
from .join_code import join_code_tag
from .lobby_events import LobbyStatus, PlayerJoined, PlayerLeft, PlayerRemoved, SameKeyJoin
from .join_gate import JoinGate
from .reject import REJECT_TEXT, JoinAnswers  # noqa: F401 (REJECT_TEXT re-exported)
from .seat_endpoint import same_endpoint
from .wire import (MSG_JOIN, MSG_PROPOSAL, MSG_REJECT, MSG_STATUS, Envelope, Join, Player, Proposal, Setup, Status,
                   seal_message)

#: The lobby's first phases (``p2p.lobby`` has them all): a joiner before the host's STATUS,
#: then everyone until the setup is proposed.
JOINING = "joining"
WAITING = "waiting"

#: The signing phases (``p2p.lobby``): a STATUS or REJECT of the host may end them (§C2.2 step 7).
_SETUP_PHASES = ("signing", "revealing")

#: Joiner: why it stops when the host signs with its key (one computer, one key dir, §C2.2; ui hints --config-dir).
SAME_KEY = "the host uses our own player key"


def xk_usable(identity: Any, xk: bytes) -> bool:
    """Whether X25519 of ``identity`` with ``xk`` gives a secret (§C2.2: a low-order key gives none)."""
    try:
        identity.x25519_exchange(xk)
    except ValueError:
        return False
    return True


class LobbyHost(Protocol):
    """What ``Admission`` uses of its lobby (``p2p.lobby.Lobby``): public state, read only, and
    the calls that change the lobby."""

    identity: Any
    role: str
    game_id: bytes
    me: Player
    phase: str
    edition: str
    seats: int
    options: tuple
    chain: Any

    def send(self, addr: Any, raw: bytes) -> None: ...
    def emit(self, event: Any) -> None: ...
    def drop(self, reason: str) -> None: ...
    def count(self, key: str) -> None: ...
    def misbehaved(self, addr: Any, reason: str, env: Envelope) -> None: ...
    def abort(self, reason: str, reject_code: int | None = None) -> None: ...
    def clear_deadline(self) -> None: ...
    def channel_key(self, addr: Any) -> bytes | None: ...
    def to_waiting(self, edition: str, seats: int, now: float) -> None: ...
    def adopt_game_id(self, game_id: bytes) -> None: ...
    def new_round(self, now: float) -> None: ...
    def enter_signing(self, sb: bytes, setup: Setup, endpoints: tuple, now: float) -> None: ...


class Admission:
    """Who may take a seat in one lobby, and which lobby messages come from the host.

    Its state: ``joined`` (host: public key -> (Player, address), join order, ourselves
    included), the probe budget and kept JOINs (``gate``), the banned, stale and
    confirmed keys (host); ``host_addr``, ``host_keys``, ``host_fp``, ``code_tag`` (joiner)."""

    def __init__(self, lobby: LobbyHost, now: float) -> None:
        self._lobby = lobby
        self.joined: dict[bytes, tuple[Player, Any]] = {}  # host only
        self.host_addr: Any = None  # joiner only, as host_keys, host_fp, code_tag
        #: The host's (Ed25519, X25519) public keys, from the advert or the first signed STATUS.
        self.host_keys: tuple[bytes, bytes] | None = None
        self.host_fp: str | None = None
        #: Join by code (protocol.md §N3.1): the code's 50-bit tag while we probe for the game
        #: id (None once known, or for any other join).
        self.code_tag: int | None = None
        #: Host only: which PROBEs may be answered (§N3.1), which new members' JOINs may be
        #: seated (§C2.2 step 2: over a confirmed channel), the ones kept unconfirmed (join_gate.py).
        self.gate = JoinGate(lobby, self, WAITING)
        # host only (§C2.2 step 7): keys removed for not confirming a setup (never seated again
        # here), members whose entry predates the current round (they must JOIN again with a fresh
        # seed commitment before the next PROPOSAL)
        self._banned: set[bytes] = set()
        self.stale: set[bytes] = set()
        #: Which JOIN a REJECT answers (version 6, p2p/reject.py): the host's last accepted JOIN
        #: per member, the JOINs a joiner sent in this attempt.
        self.answers = JoinAnswers()

    @property
    def host_public_key(self) -> bytes | None:
        """The host's Ed25519 key (32 bytes): ours at the host, else ``host_keys``' (None before any)."""
        return self._lobby.identity.public_key if self._lobby.role == "host" else (self.host_keys or (None,))[0]

    # -- the lobby's calls ------------------------------------------------------------------

    def seat_host(self, me: Player) -> None:
        """Host: seat ourselves (``me``, reachable at the endpoint it signs)."""
        self.joined[self._lobby.identity.public_key] = (me, tuple(me.endpoint))

    def expect_host(self, host_addr: Any, host_keys: tuple[bytes, bytes] | None, host_fp: str | None,
                    code_tag: int | None) -> None:
        """Joiner: the host is at ``host_addr``; its advertised keys or fingerprint, and the
        tag of the join code we probe with (None: we know the game id)."""
        self.host_addr = host_addr
        if host_keys is not None:
            self.host_keys = (bytes(host_keys[0]), bytes(host_keys[1]))
        self.host_fp = host_fp
        self.code_tag = code_tag

    def new_round(self, me: Player) -> None:
        """Host, a new round (§C2.2 step 7): our fresh entry; every other member is stale
        until it JOINs again with its fresh seed commitment."""
        pk = self._lobby.identity.public_key
        if self._lobby.role == "host":
            self.joined[pk] = (me, tuple(me.endpoint))
            self.stale = {k for k in self.joined if k != pk}
        else:
            self.answers.new_round()

    def join_msg(self) -> bytes:
        """Our JOIN; with the probe game id (zero) while joining by code: a PROBE."""
        lob = self._lobby
        return self.answers.sent(seal_message(lob.identity, MSG_JOIN, Join(lob.game_id, C.PROTOCOL_VERSION, lob.me)))

    # -- handlers ---------------------------------------------------------------------------

    def screen_probe(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None,
                     confirmed: bool | None) -> bool:
        """Join by code's routing (protocol.md §N3.1), before the lobby's game id check: True if
        the message was handled or dropped here, False if it goes on to the lobby's handlers.

        * ``gid`` = ``PROBE_GAME_ID`` (16 zero bytes) is no game's: a host's JOIN with it is a
          PROBE (``JoinGate.probe``); any other message with it is dropped (``probe_game_id``), by
          both roles. A probing joiner's own game id IS that gid, so before (H85) a STATUS or
          PROPOSAL with it matched and skipped the tag check: the first key it claimed was
          adopted and an impostor's game id-zero lobby could seat and start the joiner.
        * a joiner probing (``code_tag`` set: no game id adopted yet): every STATUS and REJECT,
          whatever its ``gid``, goes through the tag check (``on_probe_answer``); every other
          lobby message is dropped (``wrong_game``): none can be of our game before we know it."""
        lob = self._lobby
        if msg.game_id == C.PROBE_GAME_ID:
            if env.mtype == MSG_JOIN and lob.role == "host":
                self.gate.probe(env, msg, addr, now, confirmed is True, peer_key)  # §N3.1 (p2p/join_gate.py)
            else:
                lob.drop("probe_game_id")
            return True
        if self.code_tag is None:
            return False
        if env.mtype in (MSG_STATUS, MSG_REJECT):
            self.on_probe_answer(env, msg, addr, now, peer_key)
        else:
            lob.drop("wrong_game")
        return True

    def probe_confirmed(self, addr: Any, now: float) -> bool:
        """Host: the channel to ``addr`` was just confirmed (its RESPONSE, ``Endpoint.on_confirm``):
        the PROBE and the new member's JOIN kept from it are handled now (``JoinGate.confirmed``,
        §N3.1, §C2.2 step 2). True if one was kept (the caller sends)."""
        return self.gate.confirmed(addr, now)

    def on_probe_answer(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        """Joiner by code: the host's STATUS/REJECT names the game id and the host's keys; they
        must give the code's tag (else ``not_host``: someone else answered), then the usual
        host checks (address, channel key, signature). Then the real JOIN goes out."""
        lob = self._lobby
        if join_code_tag(msg.game_id, msg.host_pk) != self.code_tag:
            lob.drop("not_host")
            return
        if env.mtype == MSG_REJECT and not self._ours(msg):
            return
        if not self._from_host(env, addr, peer_key, (msg.host_pk, msg.host_xk)):
            return
        self.code_tag = None
        lob.adopt_game_id(msg.game_id)
        if env.mtype == MSG_REJECT:
            return self.on_reject(env, msg, addr, now, peer_key)
        lob.send(self.host_addr, self.join_msg())

    def on_join(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None,
                confirmed: bool | None = None) -> None:
        """Host: a JOIN (§C2.2 step 2 and step 7; ``confirmed``: its channel's, None without a transport)."""
        lob = self._lobby
        p = msg.player
        if lob.role != "host":
            lob.drop("not_host")
            return
        if peer_key is not None and peer_key != p.x25519_key:
            lob.drop("key_mismatch")  # the channel's key must be the one the player asks to be seated with
            return
        if not same_endpoint(p.endpoint, addr):  # §C2.2 step 2: a JOIN comes from the endpoint it signs
            lob.drop("endpoint_mismatch")
            return
        known = self.joined.get(p.public_key)
        moved = known is not None and tuple(known[0].endpoint) != tuple(p.endpoint)  # never honest (step 7)
        if (known is None or moved) and not self.gate.admits(env, msg, addr, now, peer_key, confirmed):
            return  # a new member, or a member naming another endpoint, only over a confirmed channel (§C2.2 step 2)
        if not env.verify(p.public_key):
            lob.drop("bad_signature")
            return
        self.same_key(p.public_key, addr)  # answered as any (REJECT: the joiner stops, SAME_KEY)
        if msg.version != C.PROTOCOL_VERSION:
            self.reject(addr, p.public_key, C.REJECT_VERSION, env.raw)
            return
        if not name_ok(p.name):
            # §C2.1 'Names': our joiners clean their own name (Lobby), so only another client
            # sends this; seated, it would print lines in every peer's screens (H107 s11 #8).
            lob.drop("bad_name")
            return
        if p.public_key in self._banned:
            lob.drop("banned")
            self.reject(addr, p.public_key, C.REJECT_FULL, env.raw)
            return
        if any(k != p.public_key and tuple(q.endpoint) == tuple(p.endpoint) for k, (q, _) in self.joined.items()):
            lob.drop("endpoint_taken")  # one member per endpoint (§C2.2 step 2); no answer: it may be spoofed
            return
        if (known is not None and p.public_key in self.stale and lob.phase == WAITING and p != known[0]
                and peer_key == p.x25519_key == known[0].x25519_key and not moved):
            # A member's fresh entry for the new round (§C2.2 step 7), over its own keyed channel, from
            # its seat's endpoint (a member's socket does not move in a lobby; RV16-C F2: one spoofed
            # from a later joiner's endpoint moved the seat there, the squatter again): a replayed
            # JOIN of an older round cannot come that way (the transport deduplicates).
            self.stale.discard(p.public_key)
            if not self.stale:
                lob.clear_deadline()  # nobody left to wait for (the stale members' JOIN_TIMEOUT)
            self.joined[p.public_key] = (p, addr)
            self.answers.accepted(p.public_key, env.raw)
            self.broadcast_status()
            self.maybe_propose(now)
            return
        if known is not None and known[0] == p:
            if lob.phase == WAITING:  # a repeated join (from its endpoint, checked above): answer again
                lob.send(addr, self.status_msg())
            return
        if lob.phase != WAITING or known is not None:
            self.reject(addr, p.public_key, C.REJECT_FULL if known is None else C.REJECT_OTHER_KEYS, env.raw)
            return
        if not xk_usable(lob.identity, p.x25519_key):
            lob.drop("bad_key")  # a low-order key: no channel, escrow or delivery key with it (H94)
            return
        self.joined[p.public_key] = (p, addr)
        self.answers.accepted(p.public_key, env.raw)
        lob.emit(PlayerJoined(p.name, fingerprint_of(p.public_key)))
        self.broadcast_status()
        self.maybe_propose(now)

    def same_key(self, pk: bytes, addr: Any) -> None:
        """Host: a JOIN or PROBE from ``addr`` validly signed with ``pk``; if that is our own key (a
        second player on our key directory), counted (``same_key``) and ``SameKeyJoin`` raised (node:
        shown once per address). The caller answers it as any other."""
        if pk == self._lobby.identity.public_key:
            self._lobby.count("same_key")
            self._lobby.emit(SameKeyJoin(addr))

    def maybe_propose(self, now: float) -> None:
        """Host: every seat taken, every member's entry of the current round (none stale):
        send the PROPOSAL."""
        lob = self._lobby
        if lob.phase == WAITING and len(self.joined) == lob.seats and not self.stale:
            self._propose(now)

    def remove(self, pks: list[bytes]) -> None:
        """Host: remove and ban the members ``pks`` (they did not confirm in time, §C2.2 step
        7): REJECT (code 1) to each, ``PlayerRemoved`` for each, counted in ``removed``."""
        for pk in pks:
            p, addr = self.joined.pop(pk)
            self._banned.add(pk)
            self.stale.discard(pk)
            self.reject(addr, pk, C.REJECT_FULL)  # answering its last JOIN we took
            self.answers.forget(pk)
            self._lobby.emit(PlayerRemoved(p.name, fingerprint_of(pk)))
            self._lobby.count("removed")

    def on_leave(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        lob = self._lobby
        if lob.role != "host" or lob.phase != WAITING:
            lob.drop("wrong_phase")
            return
        # Only the player joined from this address may leave, with its own key: one signature
        # check per LEAVE, whoever sends it.
        pk = next((k for k, (p, a) in self.joined.items() if a == addr and k != lob.identity.public_key), None)
        if pk is None:
            lob.drop("not_joined")
            return
        p = self.joined[pk][0]
        if (peer_key is not None and peer_key != p.x25519_key) or not env.verify(pk):
            lob.drop("bad_signature")
            return
        del self.joined[pk]
        self.stale.discard(pk)
        self.answers.forget(pk)
        lob.emit(PlayerLeft(p.name, fingerprint_of(pk)))
        self.broadcast_status()
        self.maybe_propose(now)

    def _from_host(self, env: Envelope, addr: Any, peer_key: bytes | None, claimed: tuple | None = None,
                   round_end: bool = False) -> bool:
        """Joiner: is this message from the host (address, channel key, signature by the
        host's key)? ``claimed``: the (pk, xk) a STATUS names, adopted if we knew no key yet and
        it matches the advert's fingerprint (or nothing was advertised). ``round_end``: a
        STATUS/REJECT that may end the signing phases (§C2.2 step 7): only over the host's
        keyed channel, whose transport drops replays and delivers in order."""
        lob = self._lobby
        if lob.role != "joiner" or addr != self.host_addr:
            lob.drop("not_host")
            return False
        if lob.phase not in (JOINING, WAITING) and not (
                round_end and lob.phase in _SETUP_PHASES and self.host_keys is not None
                and peer_key == self.host_keys[1]):
            lob.drop("wrong_phase")
            return False
        keys = self.host_keys
        if keys is None:
            if claimed is None:
                lob.drop("unverifiable")  # no key to check it with: a hint at most, ignored
                return False
            if self.host_fp is not None and fingerprint_of(claimed[0]) != self.host_fp:
                lob.drop("not_host")
                return False
            keys = claimed
        elif claimed is not None and claimed != keys:
            lob.drop("not_host")
            return False
        if (peer_key is not None and peer_key != keys[1]) or not env.verify(keys[0]):
            lob.drop("bad_signature")
            return False
        if keys[0] == lob.identity.public_key:  # signed with our key: nobody else holds it
            lob.abort(SAME_KEY)
            return False
        self.host_keys = keys
        return True

    def on_status(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        lob = self._lobby
        # A STATUS with a free seat during our signing phases is the host's new round (§C2.2
        # step 7); the last STATUS before a PROPOSAL had every seat taken and came before it.
        new_round = msg.taken < msg.seats
        if not self._from_host(env, addr, peer_key, (msg.host_pk, msg.host_xk), round_end=new_round):
            return
        if lob.phase in _SETUP_PHASES:
            lob.new_round(now)
            lob.send(self.host_addr, self.join_msg())  # our fresh entry
        lob.to_waiting(msg.edition, msg.seats, now)
        lob.emit(LobbyStatus(msg.edition, msg.seats, msg.taken, tuple(shown_name(n) for n in msg.names)))

    def _ours(self, msg: Any) -> bool:
        """Joiner: a REJECT names our key and answers a JOIN we sent in this attempt (version 6,
        p2p/reject.py), else dropped: ``not_for_us`` (sent to someone else), ``stale_reject``."""
        if msg.joiner_pk != self._lobby.identity.public_key:
            self._lobby.drop("not_for_us")  # a REJECT the host sent someone else, replayed
            return False
        if not self.answers.believes(msg):
            self._lobby.drop("stale_reject")  # it answers a JOIN of another attempt: replayed (H156 #2)
            return False
        return True

    def on_reject(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        lob = self._lobby
        if not self._ours(msg):
            return
        if not self._from_host(env, addr, peer_key, (msg.host_pk, msg.host_xk), round_end=True):
            return
        if lob.phase in _SETUP_PHASES:
            lob.abort("removed by the host: we did not confirm the setup in time", reject_code=msg.code)
            return
        text = REJECT_TEXT.get(msg.code, f"refused (code {msg.code})")
        lob.abort(f"rejected by the host: {text}", reject_code=msg.code)

    def on_proposal(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        """Joiner: a PROPOSAL from the host (a seated player who signed it, when no STATUS told
        us its keys yet) starts the signing phase; the host must be seated in it."""
        lob = self._lobby
        setup = msg.setup
        claimed = None
        if self.host_keys is None and lob.role == "joiner" and addr == self.host_addr:
            # No STATUS yet (its datagram may still be on its way): the host is the seated player
            # who signed this, with the advertised fingerprint if there is one.
            claimed = next(((p.public_key, p.x25519_key) for p in setup.players
                            if (self.host_fp is None or fingerprint_of(p.public_key) == self.host_fp)
                            and env.verify(p.public_key)), None)
        if not self._from_host(env, addr, peer_key, claimed):
            return
        host_seat = next((i for i, p in enumerate(setup.players)
                          if (p.public_key, p.x25519_key) == self.host_keys), None)
        if host_seat is None:
            lob.misbehaved(addr, "the host is not seated in its proposal", env)
            lob.abort("refusing the setup: the host is not seated in it")
            return
        if not all(xk_usable(lob.identity, p.x25519_key) for p in setup.players):
            lob.misbehaved(addr, "a seat's X25519 key derives nothing", env)
            lob.abort("refusing the setup: a seat's key derives nothing")
            return
        if not all(name_ok(p.name) for p in setup.players):  # §C2.1 'Names'
            lob.misbehaved(addr, "a seat's name is not clean", env)
            lob.abort("refusing the setup: a player's name has control characters")
            return
        endpoints = [tuple(p.endpoint) for p in setup.players]  # each seat's own word (§C2.1, version 6)
        endpoints[host_seat] = addr  # we reach the host where it answered us
        lob.enter_signing(msg.setup_bytes, setup, tuple(endpoints), now)

    # -- messages -----------------------------------------------------------------------------

    def status_msg(self) -> bytes:
        """Host: our signed STATUS (seats taken, names, our keys)."""
        lob, ident = self._lobby, self._lobby.identity
        names = [p.name for p, _ in self.joined.values()]
        return seal_message(ident, MSG_STATUS, Status(lob.game_id, lob.edition, lob.seats, len(names),
                                                      tuple(names), ident.public_key, ident.x25519_public_key))

    def reject(self, addr: Any, joiner_pk: bytes, code: int, join_raw: bytes | None = None) -> None:
        """Host: REJECT ``code`` to ``addr``, answering ``join_raw`` (None: the member's last JOIN)."""
        lob = self._lobby
        lob.send(addr, self.answers.reject_msg(lob.identity, lob.game_id, joiner_pk, code, join_raw))

    def broadcast_status(self) -> None:
        """Host: STATUS to every other member, and ``LobbyStatus`` for us."""
        lob = self._lobby
        raw = self.status_msg()
        for pk, (p, addr) in self.joined.items():
            if pk != lob.identity.public_key:
                lob.send(addr, raw)
        names = tuple(shown_name(p.name) for p, _ in self.joined.values())  # as the joiners show them
        lob.emit(LobbyStatus(lob.edition, lob.seats, len(names), names))

    def _propose(self, now: float) -> None:
        lob = self._lobby
        entries = sorted(self.joined.values(), key=lambda e: e[0].public_key)
        setup = Setup(C.PROTOCOL_VERSION, lob.game_id, lob.edition, lob.seats, lob.chain.length,
                      lob.options, tuple(p for p, _ in entries))
        sb = setup.encode()
        endpoints = tuple(tuple(p.endpoint) for p in setup.players)  # each signed by its seat (§C2.1)
        raw = seal_message(lob.identity, MSG_PROPOSAL, Proposal(lob.game_id, sb, setup))
        for pk, (p, addr) in self.joined.items():
            if pk != lob.identity.public_key:
                lob.send(addr, raw)
        lob.enter_signing(sb, setup, endpoints, now)
