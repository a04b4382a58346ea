"""Sans-I/O lobby and setup state machine (DESIGN.md §3; protocol.md §C2).

Theory of operation
-------------------
1. A host opens a lobby (``Lobby.host``): game id (16 random bytes), edition, seats, options; seated.
2. A joiner (``Lobby.join``) sends a signed JOIN to the host's address (its Ed25519 and X25519 public
   keys, name, hash-chain head, seed commitment, bot flag). The host answers STATUS (seats taken) to
   everyone, or REJECT (code: full, version, keys), signed, checked against the host's advert.
   A joiner may LEAVE before the lobby is full. Every message is checked (game id, phase, sender,
   channel key, signature) before it may change, abort or blame anything (§C2.2 "Checks").
3. When all seats are taken the host fixes the setup — protocol version, game id, edition,
   seats, chain length, options, players **ordered by Ed25519 public key bytes ascending** —
   and sends a PROPOSAL (setup bytes + every seat's UDP endpoint) to every joiner.
4. From here the rules are the same for every seat (the host has no special role): each seat
   checks the setup (its own entry is exactly what it sent, order, version, sizes) and sends
   SETUP_SIG (its signature over the setup hash) to every other seat.
5. A seat that holds all N valid setup signatures sends SEED (its seed secret; with hidden
   information also the digest of every seat's leaves it holds) to every other seat. Nobody
   reveals before every commitment is locked by everyone's signature.
6. When all N signatures and N reveals (SHA-256(secret) == commitment, the same leaves digests as
   ours) are verified, the game starts (``GameStarted``: setup, seat, game seed, endpoints);
   ``start_session`` builds the ``LockstepSession`` and ``log_header`` the game log header.

Phases: ``joining`` (joiner, before STATUS) -> ``waiting`` -> ``signing`` -> ``revealing`` ->
``started``; any phase -> ``aborted`` (rejected, left, timeout, a lie of the host's seat). At
``SETUP_TIMEOUT``, or at once on a seat's signed lie (``setup_lies``: a joiner forwards it to the host),
the host removes those seats and goes back to ``waiting`` (a new round, fresh seeds); so
does a joiner on the host's STATUS (§C2.2 step 7). ``messages_to_send() -> [(addr, bytes)]``:
addresses are whatever the node uses for the transport, normally ``(host: str, port: int)``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable

from . import const as C
from .admission import JOINING, REJECT_TEXT, WAITING, Admission  # noqa: F401 (re-exported)
from .beacon import HashChain, derive_secret, new_secret
from .chat import clean_name
from .errors import LocalProtocolError, WireError
from .gamelog import HEADER_RECORD, LOG_HEADER_VERSION, HeaderRecord
from .identity import Identity
from .join_gate import no_channel_key
from .join_resend import JoinResend
from .lobby_events import (LEFT, GameStarted, LobbyAborted, LobbyPeerMisbehaved,  # noqa: F401 (re-exported)
                           LobbyStatus, PlayerJoined, PlayerLeft, PlayerRemoved, SetupProposed, SetupRestarted)
from .lobby_outputs import LobbyOutputs
from .lockstep import LockstepSession
from .setup_round import ABORTED, REVEALING, SIGNING, STARTED, SetupRound  # noqa: F401 (re-exported)
from .setup_options import RESILIENCE_DEFAULTS, check_p2p_options  # noqa: F401 (re-exported)
from .seat_endpoint import canonical_endpoint
from .setup_signing import SetupSigning
from .wire import (LOBBY_DECODERS, MSG_JOIN, MSG_LEAVE, MSG_PROPOSAL, MSG_REJECT, MSG_SEED, MSG_SETUP_SIG,
                   MSG_STATUS, Envelope, Leave, Player, Setup, check_options, open_envelope, seal_message)

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam p2p sees; the caller passes the engine)
    from engine.api import Engine

#: Joiner: seconds past ``SETUP_TIMEOUT`` it waits in the signing phases for the host's word (a new round's STATUS,
#: or REJECT) before it aborts on its own (§C2.2 step 7): the host entered the phase first and removes the silent
#: seats at its own ``SETUP_TIMEOUT`` (+ ``setup_round.LATE_GRACE_S`` once, < this).
SETUP_HOST_GRACE = 10.0

#: Joiner: why it stops when the host never answered within ``JOIN_TIMEOUT`` (§N3.1; ui hints what to check).
NO_ANSWER = "no answer from the host"


class Lobby(LobbyOutputs):
    """One peer's lobby/setup state machine. Build with ``Lobby.host`` or ``Lobby.join``. Who may
    join and the seat order: its ``admission`` (admission.py); the current setup round, from the
    PROPOSAL to the start: its ``setup_round`` (setup_round.py). The lobby owns the phase, the
    deadline, the output queues and the counters (``LobbyOutputs``, lobby_outputs.py: ``send``,
    ``emit``, ``drop``...); its parts act through those and the calls below ("the calls of the parts")."""

    def __init__(self, identity: Identity, *, role: str, game_id: bytes, name: str, bot: bool,
                 demo_seed: bytes | None, now: float, chain_length: int, endpoint: Any) -> None:
        if len(game_id) != C.GAME_ID_LEN:
            raise LocalProtocolError("game_id must be 16 bytes")
        if len(name) > C.MAX_NAME_LEN:
            raise LocalProtocolError(f"name longer than {C.MAX_NAME_LEN} characters")
        name = clean_name(name)  # §C2.1 'Names': the host refuses a JOIN whose name is not clean
        super().__init__()  # the output queues and counters (lobby_outputs.py)
        self.identity = identity
        self.role = role
        self.game_id = game_id
        self._demo_seed = demo_seed
        #: Our hash-chain secret h_0 (32 bytes). Keep it private (0600) for ``resume_session``.
        self.chain_secret = new_secret(demo_seed, b"chain", game_id)
        #: Our hash chain (its head goes into our Join).
        self.chain = HashChain(self.chain_secret, chain_length)
        #: The current setup round (protocol.md §C2.2 step 7 starts a new one): our seed secret
        #: of it, the setup once proposed, every seat's SETUP_SIG and SEED.
        self.setup_round = SetupRound(self, 0, new_secret(demo_seed, b"seed", game_id))
        #: Our own setup entry, with the endpoint our game socket is bound to (§C2.1, version 6).
        self.me = Player(identity.public_key, identity.x25519_public_key, name, self.chain.head,
                         self.setup_round.seed_commit, bot, canonical_endpoint(endpoint))
        self.phase = JOINING
        self.edition = ""
        self.seats = 0
        self.options: tuple = ()
        self._deadline: float | None = None
        #: Joiner: when our JOIN goes out again (``join_resend``; never for the host).
        self._join = JoinResend(None)
        #: Setup hashes of the rounds given up (protocol.md §C2.2 step 7): a late SETUP_SIG/SEED
        #: of an old round is dropped (``old_round``), never a disagreement.
        self._old_setups: set[bytes] = set()
        #: Who joined, the host's keys, the gate on strangers (admission.py, join_gate.py).
        self.admission = Admission(self, now)
        #: Host: the X25519 key the channel to an address is keyed with (the driver's
        #: ``Endpoint.peer_key``): a JOIN kept unconfirmed is seated at its channel's confirmation
        #: only over that key (join_gate.py). Default: none known (it waits for its next copy).
        self.channel_key: Callable[[Any], bytes | None] = no_channel_key
        adm = self.admission
        self._handlers = {MSG_LEAVE: adm.on_leave, MSG_STATUS: adm.on_status,
                          MSG_REJECT: adm.on_reject, MSG_PROPOSAL: adm.on_proposal,
                          MSG_SETUP_SIG: self._on_setup_sig, MSG_SEED: self._on_seed}

    # -- the current round's figures (setup_round.py) --

    @property
    def round(self) -> int:
        """Setup rounds given up so far (protocol.md §C2.2 step 7)."""
        return self.setup_round.number

    @property
    def setup(self) -> Setup | None:
        """The setup once proposed (None before)."""
        return self.setup_round.setup

    @property
    def setup_bytes(self) -> bytes:
        return self.setup_round.setup_bytes

    @property
    def setup_hash(self) -> bytes:
        return self.setup_round.setup_hash

    @property
    def my_seat(self) -> int:
        """Our seat once the setup is proposed (-1 before)."""
        return self.setup_round.my_seat

    @property
    def endpoints(self) -> tuple:
        """Each seat's address, in seat order, once the setup is proposed (() before)."""
        return self.setup_round.endpoints

    @property
    def game_seed(self) -> bytes:
        """The game seed (32 bytes) once every seat revealed (b"" before)."""
        return self.setup_round.game_seed

    @property
    def signing(self) -> SetupSigning:
        """The current round's signatures and reveals (setup_signing.py)."""
        return self.setup_round.signing

    @property
    def hidden_commits(self) -> list[bytes] | None:
        """Hidden information (protocol.md §C12): every seat's leaves in seat order once signed (else None)."""
        return self.setup_round.signing.hidden_commits

    @classmethod
    def host(cls, identity: Identity, *, edition: str, seats: int, name: str, endpoint: tuple,
             options: Any = None, bot: bool = False, demo_seed: bytes | None = None, now: float = 0.0,
             chain_length: int = C.CHAIN_LENGTH) -> "Lobby":
        """Open a lobby and seat ourselves. ``endpoint``: our transport address as peers should
        reach it (signed in our entry: ``seat_endpoint.canonical_endpoint``, ValueError if it is no
        valid endpoint, e.g. a wildcard). ``demo_seed`` (demos/tests only) makes the game id, chain and seed secret
        deterministic. Raises ``LocalProtocolError`` for a bad seat count, edition or options,
        or a drawn game id of 16 zero bytes (the PROBE's, §N3.1)."""
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
        if gid == C.PROBE_GAME_ID:  # the probe's gid is no game's (§N3.1); p = 2^-128
            raise LocalProtocolError("the zero game id is reserved for join-code probes")
        lob = cls(identity, role="host", game_id=gid, name=name, bot=bot, demo_seed=demo_seed, now=now,
                  chain_length=chain_length, endpoint=endpoint)
        lob.phase, lob.edition, lob.seats, lob.options = WAITING, edition, seats, opts
        lob.admission.seat_host(lob.me)
        lob._events.append(PlayerJoined(lob.me.name, identity.fingerprint))
        return lob

    @classmethod
    def join(cls, identity: Identity, *, host_addr: Any, game_id: bytes | None, name: str, endpoint: Any,
             bot: bool = False, demo_seed: bytes | None = None, now: float = 0.0, chain_length: int = C.CHAIN_LENGTH,
             host_keys: tuple[bytes, bytes] | None = None, host_fp: str | None = None,
             code_tag: int | None = None) -> "Lobby":
        """Ask the host at ``host_addr`` for a seat in game ``game_id`` (from discovery), from our
        socket's address ``endpoint`` (signed in our JOIN, §C2.1; ValueError as for ``host``).

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
                  demo_seed=demo_seed, now=now, chain_length=chain_length, endpoint=endpoint)
        lob.admission.expect_host(host_addr, host_keys, host_fp, code_tag if game_id is None else None)
        lob._deadline = now + C.JOIN_TIMEOUT
        # Copies of our first JOIN (or PROBE) 0.1, 0.2, 0.2... s apart until the host's STATUS: the
        # host answers only once its CHALLENGE is echoed (§N3.1, §C2.2 step 2), which only a copy retries.
        lob._join = JoinResend(now, probe=True)
        lob._out.append((host_addr, lob.admission.join_msg()))
        return lob

    # -- queries (the output queues: lobby_outputs.py) --

    @property
    def host_address(self) -> Any:
        """Joiner: the host's address (None for the host)."""
        return self.admission.host_addr

    def members(self) -> list[tuple[Player, Any]]:
        """Host, before the setup: every joined player (ourselves included) with its address,
        in join order; [] for a joiner (it knows only the host). For the chat's members
        (protocol.md §N9)."""
        return list(self.admission.joined.values()) if self.role == "host" else []

    def peer_addresses(self) -> list:
        """Addresses of the peers this lobby deals with, for the transport's stranger eviction
        (protocol.md §N2.6): host — every player whose valid JOIN it accepted; joiner — the
        host; both — every seat's endpoint once the setup is proposed."""
        adm = self.admission
        addrs = [a for _, a in adm.joined.values()] + list(self.endpoints)
        if adm.host_addr is not None:
            addrs.append(adm.host_addr)
        return [tuple(a) for a in addrs if a is not None]

    def peer_keys(self) -> list[tuple[Any, bytes]]:
        """``[(address, X25519 public key)]`` of the peers whose key we know, for keying their
        transport channels (protocol.md §N2.2): once the setup is proposed every other seat
        (from the signed setup); before, the host's members, or a joiner's host."""
        adm = self.admission
        if self.setup is not None:
            return [(a, p.x25519_key) for i, (p, a) in enumerate(zip(self.setup.players, self.endpoints))
                    if i != self.my_seat and a is not None]
        if self.role == "host":
            return [(a, p.x25519_key) for pk, (p, a) in adm.joined.items()
                    if pk != self.identity.public_key and a is not None]
        if adm.host_keys is not None and adm.host_addr is not None:
            return [(adm.host_addr, adm.host_keys[1])]
        return []

    def get_timer(self) -> float | None:
        """When ``handle_timer`` must run (join or setup deadline, our next JOIN or SETUP_SIG/SEED re-send), or None."""
        phase = self.phase
        if phase in (SIGNING, REVEALING):
            resend_at = self.setup_round.resend_at
        elif phase in (JOINING, WAITING):
            resend_at = self._join.at
        else:
            return None
        return min((t for t in (resend_at, self._deadline) if t is not None), default=None)

    def handle_timer(self, now: float) -> None:
        """Signing and revealing: send our SETUP_SIG (and our SEED once revealing) to every other seat
        again every SETUP_RESEND_S — lobby messages are not re-sent otherwise, and a copy a peer lost
        (pushed out of its early buffer by junk, H37) would abort everyone at SETUP_TIMEOUT; a peer
        takes the copy as a duplicate. Abort if the join or the setup phase passed its deadline
        (JOIN_TIMEOUT; joiner: SETUP_TIMEOUT + SETUP_HOST_GRACE) — except the host: at SETUP_TIMEOUT
        it removes the seats that did not sign (or reveal; once per round it first waits
        ``LATE_GRACE_S`` for a seat that lacked a SETUP_SIG, ``SetupRound.grace``) and opens a new
        round, and after JOIN_TIMEOUT of a round's waiting it removes the members that did not send
        their fresh entry (protocol.md §C2.2 step 7). Joiner, joining or waiting: send our JOIN again
        (the same bytes) every ``JOIN_RESEND_S`` (§C2.2 step 2, "Lobby re-sends")."""
        if self.phase in (SIGNING, REVEALING):
            self.setup_round.resend(now)
        elif self.phase in (JOINING, WAITING) and (self._deadline is None or now < self._deadline) \
                and self._join.due(now):
            self._out.append((self.admission.host_addr, self.admission.join_msg()))
        adm = self.admission
        if self._deadline is not None and now >= self._deadline and self.role == "host":
            if self.phase in (SIGNING, REVEALING) and (later := self.setup_round.grace(now)) is not None:
                self._deadline = later
            elif self.phase in (SIGNING, REVEALING):
                self.restart_round(self.setup_round.silent(self.phase != SIGNING), now)
            elif self.phase == WAITING:
                self._deadline = None
                if adm.stale:
                    adm.remove(sorted(adm.stale))
                    adm.broadcast_status()
            return
        if self._deadline is not None and now >= self._deadline and self.phase in (JOINING, SIGNING, REVEALING):
            if self.phase == JOINING:
                self.abort(NO_ANSWER)
            else:
                missing = self.setup_round.missing(self.phase != SIGNING)
                self.abort(f"setup timed out in phase {self.phase}, waiting for seats {missing}")

    def announcement(self) -> dict[str, str]:
        """Discovery TXT fields (strings): version, game id (hex), edition, taken, total, phase
        ("lobby" or "running")."""
        taken = len(self.admission.joined) if self.setup is None else self.seats
        return {"v": str(C.PROTOCOL_VERSION), "game": self.game_id.hex(), "edition": self.edition,
                "taken": str(taken), "total": str(self.seats),
                "phase": "lobby" if self.phase in (JOINING, WAITING) else "running"}

    def leave(self) -> None:
        """Joiner: withdraw before the setup is proposed. Raises ``LocalProtocolError`` otherwise."""
        if self.role != "joiner" or self.phase not in (JOINING, WAITING):
            raise LocalProtocolError("only a joiner in the lobby can leave")
        self._out.append((self.admission.host_addr, seal_message(self.identity, MSG_LEAVE, Leave(self.game_id))))
        self.abort(LEFT)

    def start_session(self, engine: Engine, *, log: Any = None, own_log: Any = None,
                      now: float = 0.0) -> LockstepSession:
        """Build the ``LockstepSession`` once the game started (``log``, ``own_log``: its
        ``gamelog`` writers, or None). Raises ``LocalProtocolError`` before that."""
        if self.phase != STARTED or self.setup is None:
            raise LocalProtocolError("the game has not started")
        return LockstepSession(self.setup, self.my_seat, self.identity, self.chain, engine, self.game_seed,
                               log=log, own_log=own_log, now=now, setup_bytes=self.setup_bytes,
                               hidden_commits=self.hidden_commits)

    def log_header(self) -> bytes:
        """Header record of the game log (protocol.md §C6): msgpack [LOG_HEADER_VERSION, setup bytes,
        [SETUP_SIG envelope per seat], [SEED envelope per seat]]."""
        if self.phase != STARTED:
            raise LocalProtocolError("the game has not started")
        sigs, seeds = self.signing.header_envelopes(self.seats)
        return HEADER_RECORD.encode(HeaderRecord(LOG_HEADER_VERSION, self.setup_bytes, sigs, seeds))

    # -- input --

    def receive_message(self, data: bytes, addr: Any, now: float, peer_key: bytes | None = None,
                        confirmed: bool | None = None) -> None:
        """Handle one lobby envelope from ``addr``. ``peer_key``: the X25519 key the transport
        channel it came over is keyed with (``Endpoint.peer_key``), None for a plain channel.
        ``confirmed``: that channel proved it receives at ``addr`` (``Endpoint.confirmed``); a host
        answers a join-code PROBE (§N3.1) and seats a new member (§C2.2 step 2) only then. None: the
        caller has no transport (a sans-I/O test): a PROBE is not answered, a JOIN is taken.

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
        adm = self.admission
        probing = adm.code_tag is not None
        if adm.screen_probe(env, msg, addr, now, peer_key, confirmed):  # §N3.1: zero gid, probing
            if probing and adm.code_tag is None:
                self._join.restart(now)  # the real JOIN went out: copies every JOIN_RESEND_S
            return
        if msg.game_id != self.game_id:
            self.drop("wrong_game")
            return
        if env.mtype in (MSG_SETUP_SIG, MSG_SEED) and self.phase in (JOINING, WAITING):
            self._join.hint(now)  # the host proposed: our JOIN at once (handle_timer)
        if env.mtype == MSG_JOIN:
            adm.on_join(env, msg, addr, now, peer_key, confirmed)
        else:
            self._handlers[env.mtype](env, msg, addr, now, peer_key)

    def _on_setup_sig(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        self.setup_round.on_setup_sig(env, msg, addr, now, peer_key)

    def _on_seed(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        self.setup_round.on_seed(env, msg, addr, now, peer_key)

    # -- the calls of the parts (admission.LobbyHost, setup_round.RoundHost) --

    def abort(self, reason: str, reject_code: int | None = None) -> None:
        """End the lobby without a game (once): ``LobbyAborted``."""
        if self.phase not in (STARTED, ABORTED):
            self.phase = ABORTED
            self._deadline = None
            self._events.append(LobbyAborted(reason, reject_code))

    def clear_deadline(self) -> None:
        """Host: no stale member left to wait for."""
        self._deadline = None

    def to_waiting(self, edition: str, seats: int, now: float) -> None:
        """Joiner: the host's STATUS seated us (our JOIN's copies now every ``JOIN_RESEND_S``), or
        opened a new round."""
        if self.phase == JOINING:
            self._join.restart(now)
        self.phase = WAITING
        self.edition, self.seats = edition, seats
        self._deadline = None

    def adopt_game_id(self, game_id: bytes) -> None:
        """Joiner by code: the host's answer named the game id; demo secrets are derived from
        it, so they are derived again (protocol.md §N3.1)."""
        self.game_id = game_id
        if self._demo_seed is not None:
            self.chain_secret = new_secret(self._demo_seed, b"chain", game_id)
            self.chain = HashChain(self.chain_secret, self.chain.length)
            self.setup_round = SetupRound(self, self.round, new_secret(self._demo_seed, b"seed", game_id))
            self.me = self.me._replace(chain_head=self.chain.head, seed_commit=self.setup_round.seed_commit)

    def old_setup(self, setup_hash: bytes) -> bool:
        """Whether ``setup_hash`` is a setup of a round given up."""
        return setup_hash in self._old_setups

    def revealing(self) -> None:
        """Every seat signed: the round reveals."""
        self.phase = REVEALING

    def started(self) -> None:
        """Every seat signed and revealed: the game starts (``GameStarted``)."""
        self.phase = STARTED
        self._deadline = None
        self._events.append(GameStarted(self.setup, self.setup_bytes, self.my_seat, self.game_seed,
                                        self.endpoints))

    def new_round(self, now: float) -> None:
        """Give up the current setup (protocol.md §C2.2 step 7): back to waiting with a fresh
        seed secret (our old one may have been revealed to a seat that then vanished) and a
        fresh signing state; the host's other members must JOIN again with theirs (stale)."""
        self._old_setups.add(self.setup_hash)
        n = self.round + 1
        self.setup_round = SetupRound(self, n, new_secret(self._demo_seed, b"seed-round-%d" % n, self.game_id))
        self.phase = WAITING
        self._deadline = None
        self.me = self.me._replace(seed_commit=self.setup_round.seed_commit)
        self._join.restart(now)  # the caller sends our fresh JOIN now
        self.admission.new_round(self.me)
        self._events.append(SetupRestarted(n))

    def restart_round(self, pks: list[bytes], now: float) -> None:
        """Host (§C2.2 step 7): remove and ban the seats ``pks`` (keys), new round, STATUS (PROPOSAL)."""
        (adm := self.admission).remove(pks)
        self.new_round(now)
        self._deadline = now + C.JOIN_TIMEOUT if adm.stale else None
        adm.broadcast_status()
        adm.maybe_propose(now)

    def enter_signing(self, sb: bytes, setup: Setup, endpoints: tuple, now: float) -> None:
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
            self.abort(f"refusing the setup: {problem}")
            return
        self.edition, self.seats, self.options = setup.edition, setup.seats, setup.options
        self.phase = SIGNING
        self._deadline = now + C.SETUP_TIMEOUT + (SETUP_HOST_GRACE if self.role == "joiner" else 0.0)
        self.setup_round.start(sb, setup, endpoints, now)
