"""Sans-I/O lobby and setup state machine (DESIGN.md §3; protocol.md §C2).

Theory of operation
-------------------
1. A host opens a lobby (``Lobby.host``): game id (16 random bytes), edition, seat count,
   options. The host is seated like everyone else.
2. A joiner (``Lobby.join``) sends a signed JOIN to the host's address: its Ed25519 and X25519
   public keys, name, hash-chain head, seed commitment and bot flag. The host answers STATUS
   (seats taken) to everyone in the lobby, or REJECT (a code: full, wrong version, other keys),
   both signed by the host and checked by the joiner against the keys of the host's advert.
   A joiner may LEAVE before the lobby is full.
   Every message is checked (game id, phase, sender, channel key, signature) before it may
   change, abort or blame anything (``receive_message``); see protocol.md §C2.2 "Checks".
3. When all seats are taken the host fixes the setup — protocol version, game id, edition,
   seats, chain length, options, players **ordered by Ed25519 public key bytes ascending** —
   and sends a PROPOSAL (setup bytes + every seat's UDP endpoint) to every joiner.
4. From here the rules are the same for every seat (the host has no special role): each seat
   checks the setup (its own entry is exactly what it sent, order, version, sizes) and sends
   SETUP_SIG (its signature over the setup hash) to every other seat.
5. A seat that holds all N valid setup signatures sends SEED (its seed secret; with hidden
   information also the digest of every seat's leaves it holds) to every other seat. Nobody
   reveals before every commitment is locked by everyone's signature.
6. When all N signatures and N reveals (SHA-256(secret) == commitment, the same leaves digests
   as ours) are verified, the game starts: ``GameStarted`` carries the setup, our seat, the game seed and the endpoints;
   ``start_session`` builds the ``LockstepSession`` and ``log_header`` the game log header.

Phases: ``joining`` (joiner, before STATUS) -> ``waiting`` -> ``signing`` -> ``revealing`` ->
``started``; any phase -> ``aborted`` (rejected, left, timeout, conflicting setup). At
``SETUP_TIMEOUT`` the host removes the seats that did not sign (or reveal) and goes back to
``waiting`` (a new round, fresh seeds); so does a joiner on the host's STATUS (§C2.2 step 7).

Lobby messages travel over the reliable transport, so this machine never re-sends; it only
says which bytes go to which address: ``messages_to_send() -> [(addr, bytes)]``. Addresses are
whatever the node uses for the transport, normally ``(host: str, port: int)``.
"""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass
from typing import Any

from . import const as C
from .admission import (JOINING, REJECT_TEXT, WAITING, Admission, LobbyStatus, PlayerJoined,  # noqa: F401 (re-exported)
                        PlayerLeft, PlayerRemoved)
from .beacon import HashChain, derive_secret, new_secret, seed_commitment
from .errors import LocalProtocolError, WireError
from .gamelog import HEADER_RECORD, LOG_HEADER_VERSION, HeaderRecord
from .identity import Identity, fingerprint_of
from .lockstep import LockstepSession
from .setup_signing import DUPLICATE, EQUIVOCATION, MALFORMED, SetupSigning
from .timed_clock import check_timed_options
from .wire import (LOBBY_DECODERS, MSG_JOIN, MSG_LEAVE, MSG_PROPOSAL, MSG_REJECT, MSG_SEED, MSG_SETUP_SIG,
                   MSG_STATUS, Envelope, Leave, Player, SeedReveal, Setup, SetupSig, check_options, open_envelope,
                   seal_message, setup_hash)

SIGNING = "signing"
REVEALING = "revealing"
STARTED = "started"
ABORTED = "aborted"

#: Joiner: seconds past ``SETUP_TIMEOUT`` it waits in the signing phases for the host's word (a
#: new round's STATUS, or REJECT) before it aborts on its own (protocol.md §C2.2 step 7): the host
#: entered the phase first and removes the silent seats at its own ``SETUP_TIMEOUT``.
SETUP_HOST_GRACE = 10.0


#: Setup options that turn seat loss on with its defaults (protocol.md §C8.1): a silent seat is
#: played by the engine's bot after 30 s. Merge into ``Lobby.host(options=...)``.
RESILIENCE_DEFAULTS = {C.OPT_ON_DROP: C.DEFAULT_ON_DROP, C.OPT_DROP_TIMEOUT: C.DEFAULT_DROP_TIMEOUT}


def check_p2p_options(opts: tuple) -> None:
    """Validate the ``p2p.*`` setup options (protocol.md §C8.1; ``p2p.timed_ms``: protocol.md §N8).
    Raises ``LocalProtocolError``."""
    d = dict(opts)
    for k in d:
        if k.startswith(C.P2P_OPTION_PREFIX) and k not in (C.OPT_ON_DROP, C.OPT_DROP_TIMEOUT, C.OPT_TIMED_MS,
                                                           C.OPT_TURN_TIME):
            raise LocalProtocolError(f"unknown p2p option {k!r}")
    bad = check_timed_options(d)
    if bad is not None:
        raise LocalProtocolError(bad)
    if C.OPT_ON_DROP in d and d[C.OPT_ON_DROP] not in ("bot", "bankrupt"):
        raise LocalProtocolError(f"{C.OPT_ON_DROP} must be 'bot' or 'bankrupt'")
    t = d.get(C.OPT_DROP_TIMEOUT, C.DEFAULT_DROP_TIMEOUT)
    if type(t) is not int or not C.MIN_DROP_TIMEOUT <= t <= C.MAX_DROP_TIMEOUT:
        raise LocalProtocolError(f"{C.OPT_DROP_TIMEOUT} must be an int of seconds in "
                                 f"[{C.MIN_DROP_TIMEOUT}, {C.MAX_DROP_TIMEOUT}]")
    t = d.get(C.OPT_TURN_TIME, C.DEFAULT_TURN_TIME)
    if type(t) is not int or not 0 <= t <= C.MAX_TURN_TIME:
        raise LocalProtocolError(f"{C.OPT_TURN_TIME} must be an int of seconds in [0, {C.MAX_TURN_TIME}] (0: unlimited)")


# --- events (``LobbyStatus``, ``PlayerJoined``, ``PlayerLeft``: admission.py) ---------------


@dataclass(frozen=True)
class SetupProposed:
    """The setup is fixed; we signed it and wait for the other seats' signatures."""

    setup: Setup
    my_seat: int


@dataclass(frozen=True)
class SetupRestarted:
    """The setup of round ``round`` - 1 was given up (seats that did not confirm it were
    removed, protocol.md §C2.2 step 7): back to waiting, with fresh seed commitments."""

    round: int


@dataclass(frozen=True)
class GameStarted:
    """All seats signed the setup and revealed their seeds. ``endpoints``: each seat's
    address in seat order; ``game_seed``: 32 bytes."""

    setup: Setup
    setup_bytes: bytes
    my_seat: int
    game_seed: bytes
    endpoints: tuple


@dataclass(frozen=True)
class LobbyAborted:
    """The lobby ended without a game: ``reason`` in English (fixed texts only: never text a
    peer chose); ``reject_code``: the host's REJECT code (``const.REJECT_CODES``) if it
    refused our JOIN, else None."""

    reason: str
    reject_code: int | None = None


@dataclass(frozen=True)
class LobbyPeerMisbehaved:
    """A message from ``addr`` was dropped: bad signature, wrong game, bad reveal..."""

    addr: Any
    reason: str
    evidence: bytes


class Lobby(Admission):
    """One peer's lobby/setup state machine. Build with ``Lobby.host`` or ``Lobby.join``. Who may
    join and the seat order: ``Admission`` (admission.py); the signing phase: ``SetupSigning``."""

    def __init__(self, identity: Identity, *, role: str, game_id: bytes, name: str, bot: bool,
                 demo_seed: bytes | None, now: float, chain_length: int) -> None:
        if len(game_id) != C.GAME_ID_LEN:
            raise LocalProtocolError("game_id must be 16 bytes")
        if len(name) > C.MAX_NAME_LEN:
            raise LocalProtocolError(f"name longer than {C.MAX_NAME_LEN} characters")
        self.identity = identity
        self.role = role
        self.game_id = game_id
        #: Our hash-chain secret h_0 (32 bytes). Keep it private (0600) for ``resume_session``.
        self.chain_secret = new_secret(demo_seed, b"chain", game_id)
        #: Our hash chain (its head goes into our Join).
        self.chain = HashChain(self.chain_secret, chain_length)
        self._seed_secret = new_secret(demo_seed, b"seed", game_id)
        #: Our own setup entry.
        self.me = Player(identity.public_key, identity.x25519_public_key, name, self.chain.head,
                         seed_commitment(self._seed_secret), bot)
        self.phase = JOINING
        self.edition = ""
        self.seats = 0
        self.options: tuple = ()
        self.setup: Setup | None = None
        self.setup_bytes = b""
        self.setup_hash = b""
        self.my_seat = -1
        self.endpoints: tuple = ()
        self.game_seed = b""
        self._out: list[tuple[Any, bytes]] = []
        self._events: deque = deque()
        self._deadline: float | None = None
        #: Setup rounds given up so far (protocol.md §C2.2 step 7) and their setup hashes: a
        #: late SETUP_SIG/SEED of an old round is dropped (``old_round``), never a disagreement.
        self.round = 0
        self._old_setups: set[bytes] = set()
        #: Signing and revealing: when our SETUP_SIG/SEED go to every other seat again.
        self._resend_at: float | None = None
        #: The signing phase (setup_signing.py): every seat's SETUP_SIG and SEED, the early
        #: ones held until our PROPOSAL, the hidden-information leaves.
        self.signing = SetupSigning()
        # Who joined, the host's keys, the probe budget (admission.py).
        self._init_admission(now, demo_seed)
        #: Counters: ``received``, ``malformed``, ``dropped`` (all drops), and one per drop reason
        #: (``wrong_game``, ``bad_signature``, ``not_host``, ``not_seated``, ``wrong_phase``,
        #: ``key_mismatch``, ``unverifiable``, ``buffer_full``...).
        self.stats: dict[str, int] = dict.fromkeys(("received", "malformed", "dropped"), 0)

    @property
    def hidden_commits(self) -> list[bytes] | None:
        """Hidden information (protocol.md §C12): every seat's leaves in seat order once
        signed (None in editions without hidden information)."""
        return self.signing.hidden_commits

    @classmethod
    def host(cls, identity: Identity, *, edition: str, seats: int, name: str, endpoint: tuple,
             options: Any = None, bot: bool = False, demo_seed: bytes | None = None, now: float = 0.0,
             chain_length: int = C.CHAIN_LENGTH) -> "Lobby":
        """Open a lobby and seat ourselves. ``endpoint``: our transport address as peers should
        reach it. ``demo_seed`` (demos/tests only) makes the game id, chain and seed secret
        deterministic. Raises ``LocalProtocolError`` for a bad seat count, edition or options."""
        if not C.MIN_SEATS <= seats <= C.MAX_SEATS:
            raise LocalProtocolError(f"seats must be {C.MIN_SEATS}..{C.MAX_SEATS}")
        if not edition or len(edition) > C.MAX_EDITION_LEN:
            raise LocalProtocolError("bad edition name")
        try:
            opts = check_options(options or {})
        except WireError as e:
            raise LocalProtocolError(str(e)) from None
        check_p2p_options(opts)
        gid = os.urandom(C.GAME_ID_LEN) if demo_seed is None else derive_secret(demo_seed, b"game-id", b"")[:16]
        lob = cls(identity, role="host", game_id=gid, name=name, bot=bot, demo_seed=demo_seed, now=now,
                  chain_length=chain_length)
        lob.phase, lob.edition, lob.seats, lob.options = WAITING, edition, seats, opts
        lob._endpoint = tuple(endpoint)
        lob._joined[identity.public_key] = (lob.me, lob._endpoint)
        lob._events.append(PlayerJoined(name, identity.fingerprint))
        return lob

    @classmethod
    def join(cls, identity: Identity, *, host_addr: Any, game_id: bytes | None, name: str, bot: bool = False,
             demo_seed: bytes | None = None, now: float = 0.0, chain_length: int = C.CHAIN_LENGTH,
             host_keys: tuple[bytes, bytes] | None = None, host_fp: str | None = None,
             code_tag: int | None = None) -> "Lobby":
        """Ask the host at ``host_addr`` for a seat in game ``game_id`` (from discovery).

        ``code_tag`` (join by code, ``game_id`` None): first send a PROBE (a JOIN with a zero
        game id); the host's signed STATUS/REJECT is believed only if its game id and key give
        this tag (``join_code.join_code_tag``), then the real JOIN follows (protocol.md §N3.1).

        ``host_keys``: the host's (Ed25519, X25519) public keys from its advert (TXT ``pk``,
        ``xk``): STATUS, REJECT and PROPOSAL must be signed by that key. Else ``host_fp``
        (TXT ``fp``, 16 hex digits): the first STATUS whose key has that fingerprint names the
        host's keys. With neither (join by address), the first validly signed STATUS from
        ``host_addr`` does (trust on first use). Protocol.md §C2.2."""
        if game_id is None and code_tag is None:
            raise LocalProtocolError("a joiner needs the game id or a join code")
        lob = cls(identity, role="joiner", game_id=game_id or C.PROBE_GAME_ID, name=name, bot=bot,
                  demo_seed=demo_seed, now=now, chain_length=chain_length)
        lob._code_tag = code_tag if game_id is None else None
        lob._host_addr = host_addr
        if host_keys is not None:
            lob._host_keys = (bytes(host_keys[0]), bytes(host_keys[1]))
        lob._host_fp = host_fp
        lob._deadline = now + C.JOIN_TIMEOUT
        lob._out.append((host_addr, lob._join_msg()))
        return lob

    # -- outputs / queries --

    def messages_to_send(self) -> list[tuple[Any, bytes]]:
        """``[(addr, envelope bytes)]`` to send over the reliable transport (drains the queue)."""
        out, self._out = self._out, []
        return out

    def next_event(self) -> Any:
        """Next event or None: ``LobbyStatus``, ``PlayerJoined``, ``PlayerLeft``,
        ``SetupProposed``, ``GameStarted``, ``LobbyAborted``, ``LobbyPeerMisbehaved``."""
        return self._events.popleft() if self._events else None

    @property
    def host_address(self) -> Any:
        """Joiner: the host's address (None for the host)."""
        return self._host_addr

    def members(self) -> list[tuple[Player, Any]]:
        """Host, before the setup: every joined player (ourselves included) with its address,
        in join order; [] for a joiner (it knows only the host). For the chat's members
        (protocol.md §N9)."""
        return list(self._joined.values()) if self.role == "host" else []

    def peer_addresses(self) -> list:
        """Addresses of the peers this lobby deals with, for the transport's stranger eviction
        (protocol.md §N2.6): host — every player whose valid JOIN it accepted; joiner — the
        host; both — every seat's endpoint once the setup is proposed."""
        addrs = [a for _, a in self._joined.values()] + list(self.endpoints)
        if self._host_addr is not None:
            addrs.append(self._host_addr)
        return [tuple(a) for a in addrs if a is not None]

    def peer_keys(self) -> list[tuple[Any, bytes]]:
        """``[(address, X25519 public key)]`` of the peers whose key we know, for keying their
        transport channels (protocol.md §N2.2): once the setup is proposed every other seat
        (setup key, endpoint); before that, host — every player whose valid JOIN it accepted;
        joiner — the host, if its key is known (advert or signed STATUS)."""
        if self.setup is not None:
            return [(a, p.x25519_key) for i, (p, a) in enumerate(zip(self.setup.players, self.endpoints))
                    if i != self.my_seat and a is not None]
        if self.role == "host":
            return [(a, p.x25519_key) for pk, (p, a) in self._joined.items()
                    if pk != self.identity.public_key and a is not None]
        if self._host_keys is not None and self._host_addr is not None:
            return [(self._host_addr, self._host_keys[1])]
        return []

    def get_timer(self) -> float | None:
        """When ``handle_timer`` must run (join or setup deadline, the next re-send of our
        SETUP_SIG/SEED), or None."""
        if self.phase in (SIGNING, REVEALING) and self._resend_at is not None:
            return self._resend_at if self._deadline is None else min(self._deadline, self._resend_at)
        return self._deadline if self.phase in (JOINING, WAITING, SIGNING, REVEALING) else None

    def handle_timer(self, now: float) -> None:
        """Signing and revealing: send our SETUP_SIG (and our SEED once revealing) to every
        other seat again every SETUP_RESEND_S — lobby messages are not re-sent otherwise, and a
        copy a peer lost (pushed out of its early buffer by junk, H37) would abort everyone at
        SETUP_TIMEOUT; a peer takes the copy as a duplicate. Abort if the join or the setup
        phase passed its deadline (JOIN_TIMEOUT; joiner: SETUP_TIMEOUT + SETUP_HOST_GRACE) —
        except the host: at SETUP_TIMEOUT it removes the seats that did not sign (or reveal)
        and opens a new round, and after JOIN_TIMEOUT of a round's waiting it removes the
        members that did not send their fresh entry (protocol.md §C2.2 step 7)."""
        if self.phase in (SIGNING, REVEALING) and self._resend_at is not None and now >= self._resend_at:
            for raw in self.signing.own(self.my_seat):
                self._send_to_seats(raw)
            self._resend_at = now + C.SETUP_RESEND_S
        if self._deadline is not None and now >= self._deadline and self.role == "host":
            if self.phase in (SIGNING, REVEALING):
                missing = self.signing.missing(self.seats, self.phase != SIGNING)
                self._remove([p.public_key for i, p in enumerate(self.setup.players)
                              if i in missing and p.public_key != self.identity.public_key])
                self._new_round(now)
                self._deadline = now + C.JOIN_TIMEOUT if self._stale else None
                self._broadcast_status()
                self._maybe_propose(now)
            elif self.phase == WAITING:
                self._deadline = None
                if self._stale:
                    self._remove(sorted(self._stale))
                    self._broadcast_status()
            return
        if self._deadline is not None and now >= self._deadline and self.phase in (JOINING, SIGNING, REVEALING):
            if self.phase == JOINING:
                self._abort("no answer from the host")
            else:
                missing = self.signing.missing(self.seats, self.phase != SIGNING)
                self._abort(f"setup timed out in phase {self.phase}, waiting for seats {missing}")

    def announcement(self) -> dict[str, str]:
        """Discovery TXT fields (strings): version, game id (hex), edition, taken, total, phase
        ("lobby" or "running")."""
        return {"v": str(C.PROTOCOL_VERSION), "game": self.game_id.hex(), "edition": self.edition,
                "taken": str(len(self._joined) if self.setup is None else self.seats), "total": str(self.seats),
                "phase": "lobby" if self.phase in (JOINING, WAITING) else "running"}

    def leave(self) -> None:
        """Joiner: withdraw before the setup is proposed. Raises ``LocalProtocolError`` otherwise."""
        if self.role != "joiner" or self.phase not in (JOINING, WAITING):
            raise LocalProtocolError("only a joiner in the lobby can leave")
        self._out.append((self._host_addr, seal_message(self.identity, MSG_LEAVE, Leave(self.game_id))))
        self._abort("left the lobby")

    def start_session(self, engine: Any, *, log: Any = None, now: float = 0.0) -> LockstepSession:
        """Build the ``LockstepSession`` once the game started. Raises ``LocalProtocolError``
        before that."""
        if self.phase != STARTED or self.setup is None:
            raise LocalProtocolError("the game has not started")
        return LockstepSession(self.setup, self.my_seat, self.identity, self.chain, engine, self.game_seed,
                               log=log, now=now, setup_bytes=self.setup_bytes,
                               hidden_commits=self.hidden_commits)

    def log_header(self) -> bytes:
        """Header record of the game log (protocol.md §C6): msgpack [LOG_HEADER_VERSION, setup bytes,
        [SETUP_SIG envelope per seat], [SEED envelope per seat]]."""
        if self.phase != STARTED:
            raise LocalProtocolError("the game has not started")
        sigs, seeds = self.signing.header_envelopes(self.seats)
        return HEADER_RECORD.encode(HeaderRecord(LOG_HEADER_VERSION, self.setup_bytes, sigs, seeds))

    # -- input --

    def receive_message(self, data: bytes, addr: Any, now: float, peer_key: bytes | None = None) -> None:
        """Handle one lobby envelope from ``addr``. ``peer_key``: the X25519 key the transport
        channel it came over is keyed with (``Endpoint.peer_key``), None for a plain channel.

        Every message is checked — structure, game id, phase, that the sender is the host, a
        seat or joining, its signature — before it may change, abort or blame anything
        (protocol.md §C2.2, "Checks"). What fails is dropped and counted in ``stats`` (by
        reason); only a message signed by a seated player can abort the lobby or produce a
        ``LobbyPeerMisbehaved``. Never raises for bad input."""
        self.stats["received"] += 1
        try:
            env = open_envelope(data, C.MAX_LOBBY_MSG)
            decoder = LOBBY_DECODERS.get(env.mtype)
            if decoder is None:
                raise WireError("not a lobby message")
            msg = decoder(env.body)
        except WireError:
            self.stats["malformed"] += 1
            return
        if msg.game_id != self.game_id:
            if env.mtype == MSG_JOIN and msg.game_id == C.PROBE_GAME_ID and self.role == "host":
                self._on_probe(env, msg, addr, now)
            elif self._code_tag is not None and env.mtype in (MSG_STATUS, MSG_REJECT):
                self._on_probe_answer(env, msg, addr, now, peer_key)
            else:
                self._drop("wrong_game")
            return
        _HANDLERS[env.mtype](self, env, msg, addr, now, peer_key)

    # -- handlers --

    def _on_proposal(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        setup = msg.setup
        claimed = None
        if self._host_keys is None and self.role == "joiner" and addr == self._host_addr:
            # No STATUS yet (its datagram may still be on its way): the host is the seated player
            # who signed this, with the advertised fingerprint if there is one.
            claimed = next(((p.public_key, p.x25519_key) for p in setup.players
                            if (self._host_fp is None or fingerprint_of(p.public_key) == self._host_fp)
                            and env.verify(p.public_key)), None)
        if not self._from_host(env, addr, peer_key, claimed):
            return
        host_seat = next((i for i, p in enumerate(setup.players)
                          if (p.public_key, p.x25519_key) == self._host_keys), None)
        if host_seat is None:
            self._misbehaved(addr, "the host is not seated in its proposal", env)
            self._abort("refusing the setup: the host is not seated in it")
            return
        endpoints = list(msg.endpoints)
        endpoints[host_seat] = addr  # we reach the host where it answered us
        self._enter_signing(msg.setup_bytes, setup, tuple(endpoints), now)

    def _on_setup_sig(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        if not self._check_seated(env, msg, addr, peer_key):
            return
        outcome = self.signing.add_sig(msg.seat, env, msg.leaves)
        if outcome == EQUIVOCATION:
            # Two different SETUP_SIGs signed by one seat (e.g. other leaves).
            self._misbehaved(addr, "two different setup signatures", env)
            self._abort(f"seat {msg.seat} signed two different setup signatures")
            return
        if outcome == MALFORMED:
            self._misbehaved(addr, "hidden-information commitment missing or of the wrong size", env)
            self._abort(f"seat {msg.seat} sent a malformed hidden-information commitment")
            return
        if outcome == DUPLICATE:
            return
        self._confirmed.add(self.setup.players[msg.seat].public_key)  # host: per-address cap
        self._maybe_reveal()

    def _on_seed(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        if not self._check_seated(env, msg, addr, peer_key):
            return
        if seed_commitment(msg.secret) != self.setup.players[msg.seat].seed_commit:
            self._abort(f"seat {msg.seat} revealed a seed secret that does not match its commitment")
            self._events.append(LobbyPeerMisbehaved(addr, "seed reveal does not match commitment", env.raw))
            return
        if not self.signing.seed_fits(msg.commits, self.seats):
            self._misbehaved(addr, "hidden-information digests missing or of the wrong count", env)
            self._abort(f"seat {msg.seat} sent a malformed seed reveal")
            return
        self.signing.add_seed(msg.seat, env.raw, msg.secret, msg.commits)
        self._maybe_start()

    # -- internals --

    def _new_round(self, now: float) -> None:
        """Give up the current setup (protocol.md §C2.2 step 7): back to waiting with a fresh
        seed secret (our old one may have been revealed to a seat that then vanished) and a
        fresh signing state; the host's other members must JOIN again with theirs (stale)."""
        self._old_setups.add(self.setup_hash)
        self.round += 1
        self.setup, self.setup_bytes, self.setup_hash = None, b"", b""
        self.my_seat, self.endpoints = -1, ()
        self.phase = WAITING
        self._deadline = self._resend_at = None
        self.signing = SetupSigning()
        self._seed_secret = new_secret(self._demo_seed, b"seed-round-%d" % self.round, self.game_id)
        self.me = self.me._replace(seed_commit=seed_commitment(self._seed_secret))
        if self.role == "host":
            self._joined[self.identity.public_key] = (self.me, self._endpoint)
            self._stale = {pk for pk in self._joined if pk != self.identity.public_key}
        self._events.append(SetupRestarted(self.round))

    def _enter_signing(self, sb: bytes, setup: Setup, endpoints: tuple, now: float) -> None:
        """Role-agnostic: check the setup, sign it, send SETUP_SIG to every other seat."""
        problem = None
        if setup.version != C.PROTOCOL_VERSION:
            problem = "protocol version differs"
        elif self.me not in setup.players:
            problem = "our entry is missing or altered in the proposed setup"
        elif setup.chain_length != self.chain.length:
            problem = "chain length differs"
        elif self.role == "joiner" and self.edition and setup.edition != self.edition:
            problem = "edition differs from the lobby's"
        if problem:
            self._abort(f"refusing the setup: {problem}")
            return
        self.setup, self.setup_bytes, self.setup_hash = setup, sb, setup_hash(sb)
        self.edition, self.seats, self.options = setup.edition, setup.seats, setup.options
        self.my_seat = setup.players.index(self.me)
        self.endpoints = endpoints
        self.phase = SIGNING
        self._deadline = now + C.SETUP_TIMEOUT + (SETUP_HOST_GRACE if self.role == "joiner" else 0.0)
        self._resend_at = now + C.SETUP_RESEND_S
        self._events.append(SetupProposed(setup, self.my_seat))
        # Hidden information (protocol.md §C12.2): our leaves, signed before any seed is revealed.
        mine = self.signing.start(setup, self.my_seat, self.chain_secret, self.game_id)
        raw = seal_message(self.identity, MSG_SETUP_SIG, SetupSig(self.game_id, self.my_seat, self.setup_hash, mine))
        self.signing.signed_by_us(self.my_seat, raw)
        self._send_to_seats(raw)
        for env, msg, addr, peer_key in self.signing.take_early():
            if self.phase not in (SIGNING, REVEALING):
                break  # a buffered message aborted the lobby
            _HANDLERS[env.mtype](self, env, msg, addr, now, peer_key)
        self._maybe_reveal()

    def _send_to_seats(self, raw: bytes) -> None:
        for i, addr in enumerate(self.endpoints):
            if i != self.my_seat:
                self._out.append((addr, raw))

    def _check_seated(self, env: Envelope, msg: Any, addr: Any, peer_key: bytes | None) -> bool:
        """May this SETUP_SIG/SEED be used now? One before our PROPOSAL is held
        (``SetupSigning.hold_early``), one after the signing phases dropped. Else it must be
        signed by the seat it names (and have come over that seat's channel when the channel is
        keyed) before anything in it is compared: only then may a setup hash that differs from
        ours abort the lobby."""
        if self.phase in (JOINING, WAITING):
            for reason in self.signing.hold_early(env, msg, addr, peer_key):
                self._drop(reason)
            return False
        if self.phase not in (SIGNING, REVEALING):
            self._drop("wrong_phase")
            return False
        if msg.seat >= self.seats:
            self._drop("not_seated")
            return False
        p = self.setup.players[msg.seat]
        if peer_key is not None and peer_key != p.x25519_key:
            self._drop("key_mismatch")
            return False
        if not env.verify(p.public_key):
            self._drop("bad_signature")
            return False
        if msg.setup_hash in self._old_setups:
            self._drop("old_round")  # a late copy of a setup given up (§C2.2 step 7)
            return False
        if msg.setup_hash != self.setup_hash:
            # A seat signed another setup: the host proposed different setups to different seats.
            self._misbehaved(addr, "setup hash differs from ours", env)
            self._abort("seats disagree on the setup")
            return False
        return True

    def _maybe_reveal(self) -> None:
        if self.phase == SIGNING and self.signing.all_signed(self.seats):
            self.phase = REVEALING
            # What we hold of every seat's leaves (protocol.md §C12.2): every SEED must agree.
            commits = self.signing.commits_digests()
            raw = seal_message(self.identity, MSG_SEED,
                               SeedReveal(self.game_id, self.my_seat, self.setup_hash, self._seed_secret, commits))
            self.signing.add_seed(self.my_seat, raw, self._seed_secret, commits)
            self._send_to_seats(raw)
            self._maybe_start()

    def _maybe_start(self) -> None:
        if self.phase == REVEALING and self.signing.all_revealed(self.seats):
            differs = self.signing.disagreement(self.my_seat, self.seats)
            if differs is not None:
                i, bad, raw = differs
                self._events.append(LobbyPeerMisbehaved(self.endpoints[i], "seats disagree on hidden-information "
                                                        f"commitments of seats {bad}", raw))
                self._abort(f"seat {i} holds other hidden-information commitments of seats {bad} than we "
                            "do: a seat showed different leaves to different peers")
                return
            self.game_seed = self.signing.game_seed(self.seats)
            self.phase = STARTED
            self._deadline = None
            self._events.append(GameStarted(self.setup, self.setup_bytes, self.my_seat, self.game_seed,
                                            self.endpoints))

    def _drop(self, reason: str) -> None:
        """An unchecked or unauthenticated message: counted, nothing else (no event: nobody
        can be blamed for it)."""
        self.stats["dropped"] += 1
        self.stats[reason] = self.stats.get(reason, 0) + 1

    def _misbehaved(self, addr: Any, reason: str, env: Envelope) -> None:
        # Only for messages signed by a seated player (or the host): evidence that names it.
        self.stats["dropped"] += 1
        self._events.append(LobbyPeerMisbehaved(addr, reason, env.raw))

    def _abort(self, reason: str, reject_code: int | None = None) -> None:
        if self.phase not in (STARTED, ABORTED):
            self.phase = ABORTED
            self._deadline = None
            self._events.append(LobbyAborted(reason, reject_code))


_HANDLERS = {
    MSG_JOIN: Lobby._on_join,
    MSG_LEAVE: Lobby._on_leave,
    MSG_STATUS: Lobby._on_status,
    MSG_REJECT: Lobby._on_reject,
    MSG_PROPOSAL: Lobby._on_proposal,
    MSG_SETUP_SIG: Lobby._on_setup_sig,
    MSG_SEED: Lobby._on_seed,
}
