"""One setup round of a lobby (protocol.md §C2.2 steps 3-7, §C2.3-§C2.5): from the PROPOSAL to
the game's start, or until the host gives the round up.

A round has its own seed secret (a fresh one per round: an old one may have been revealed to a
seat that then vanished), the SETUP_SIG/SEED messages that came before our PROPOSAL, and, once
the setup is fixed, the setup, our seat, every seat's endpoint, every seat's signature and
reveal (``setup_signing.SetupSigning``) and the time of our next re-send. ``Lobby`` holds the
current ``SetupRound`` and starts a new one at step 7; the round checks that a SETUP_SIG/SEED
comes from the seat it names, signs, reveals, re-sends, and says when the game starts. It
reads the lobby's public state and acts only through the calls of ``RoundHost``.
"""

from __future__ import annotations

from typing import Any, Protocol

from . import const as C
from .beacon import seed_commitment
from .lobby_events import SetupProposed
from .setup_signing import DUPLICATE, EQUIVOCATION, MALFORMED, SetupSigning
from .wire import MSG_SEED, MSG_SETUP_SIG, Envelope, Player, SeedReveal, Setup, SetupSig, seal_message, setup_hash

__all__ = ["ABORTED", "REVEALING", "RoundHost", "SIGNING", "STARTED", "SetupRound"]

SIGNING = "signing"
REVEALING = "revealing"
STARTED = "started"
ABORTED = "aborted"
_EARLY_PHASES = ("joining", "waiting")  # admission.JOINING, WAITING: before our PROPOSAL


class RoundHost(Protocol):
    """What a ``SetupRound`` uses of its lobby (``p2p.lobby.Lobby``)."""

    identity: Any
    role: str
    admission: Any
    game_id: bytes
    me: Player
    phase: str
    seats: int
    chain_secret: bytes

    def send(self, addr: Any, raw: bytes) -> None: ...
    def emit(self, event: Any) -> None: ...
    def drop(self, reason: str) -> None: ...
    def misbehaved(self, addr: Any, reason: str, env: Envelope) -> None: ...
    def emit_misbehaved(self, addr: Any, reason: str, raw: bytes) -> None: ...
    def abort(self, reason: str, reject_code: int | None = None) -> None: ...
    def old_setup(self, setup_hash: bytes) -> bool: ...
    def seat_confirmed(self, pk: bytes) -> None: ...
    def revealing(self) -> None: ...
    def started(self) -> None: ...
    def restart_round(self, pks: list[bytes], now: float) -> None: ...


class SetupRound:
    """Round ``number`` (0 first) of one lobby, with our ``seed_secret`` (32 bytes) of it.

    Public, read-only: ``setup`` (None before the PROPOSAL), ``setup_bytes``, ``setup_hash``,
    ``my_seat`` (-1 before), ``endpoints`` (each seat's address, seat order), ``game_seed``
    (32 bytes once every seat revealed), ``signing`` (every seat's SETUP_SIG and SEED)."""

    def __init__(self, lobby: RoundHost, number: int, seed_secret: bytes) -> None:
        self._lobby = lobby
        self.number = number
        self.seed_secret = seed_secret
        self.setup: Setup | None = None
        self.setup_bytes = b""
        self.setup_hash = b""
        self.my_seat = -1
        self.endpoints: tuple = ()
        self.game_seed = b""
        #: Signing and revealing: when our SETUP_SIG/SEED go to every other seat again.
        self.resend_at: float | None = None
        #: The signing phase (setup_signing.py): every seat's SETUP_SIG and SEED, the early
        #: ones held until our PROPOSAL, the hidden-information leaves.
        self.signing = SetupSigning()

    @property
    def seed_commit(self) -> bytes:
        """SHA-256 commitment of our seed secret (protocol.md §C2.1), for our setup entry."""
        return seed_commitment(self.seed_secret)

    def start(self, sb: bytes, setup: Setup, endpoints: tuple, now: float) -> None:
        """The lobby checked the setup ``setup`` (bytes ``sb``) and entered the signing phase:
        sign it (with our hidden-information leaves, §C12.2), send SETUP_SIG to every other
        seat, take the messages held before the PROPOSAL, reveal if every seat signed."""
        lob = self._lobby
        self.setup, self.setup_bytes, self.setup_hash = setup, sb, setup_hash(sb)
        self.my_seat = setup.players.index(lob.me)
        self.endpoints = endpoints
        self.resend_at = now + C.SETUP_RESEND_S
        lob.emit(SetupProposed(setup, self.my_seat))
        # Hidden information (protocol.md §C12.2): our leaves, signed before any seed is revealed.
        mine = self.signing.start(setup, self.my_seat, lob.chain_secret, lob.game_id)
        raw = seal_message(lob.identity, MSG_SETUP_SIG, SetupSig(lob.game_id, self.my_seat, self.setup_hash, mine))
        self.signing.signed_by_us(self.my_seat, raw)
        self._send_to_seats(raw)
        for env, msg, addr, peer_key in self.signing.take_early():
            if lob.phase not in (SIGNING, REVEALING):
                break  # a buffered message aborted the lobby
            handler = self.on_setup_sig if env.mtype == MSG_SETUP_SIG else self.on_seed
            handler(env, msg, addr, now, peer_key)
        self._maybe_reveal()

    def resend(self, now: float) -> None:
        """Signing and revealing: our SETUP_SIG (and SEED once revealing) to every other seat
        again when ``resend_at`` passed (every ``SETUP_RESEND_S``)."""
        if self.resend_at is not None and now >= self.resend_at:
            for raw in self.signing.own(self.my_seat):
                self._send_to_seats(raw)
            self.resend_at = now + C.SETUP_RESEND_S

    def missing(self, revealing: bool) -> list[int]:
        """Seats whose SETUP_SIG (``revealing``: or SEED) we lack."""
        return self.signing.missing(self._lobby.seats, revealing)

    def silent(self, revealing: bool) -> list[bytes]:
        """Host at ``SETUP_TIMEOUT`` (§C2.2 step 7): the public keys of the other seats that did
        not confirm this round (``missing``), to remove and ban."""
        missing = self.missing(revealing)
        me = self._lobby.identity.public_key
        return [p.public_key for i, p in enumerate(self.setup.players) if i in missing and p.public_key != me]

    # -- handlers -------------------------------------------------------------------------------

    def on_setup_sig(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        if not self._check_seated(env, msg, addr, now, peer_key):
            return
        lob = self._lobby
        outcome = self.signing.add_sig(msg.seat, env, msg.leaves)
        if outcome == EQUIVOCATION:
            # Two different SETUP_SIGs signed by one seat (e.g. other leaves).
            lob.misbehaved(addr, "two different setup signatures", env)
            lob.abort(f"seat {msg.seat} signed two different setup signatures")
            return
        if outcome == MALFORMED:
            lob.misbehaved(addr, "hidden-information commitment missing or of the wrong size", env)
            lob.abort(f"seat {msg.seat} sent a malformed hidden-information commitment")
            return
        if outcome == DUPLICATE:
            return
        lob.seat_confirmed(self.setup.players[msg.seat].public_key)  # host: per-address cap
        self._maybe_reveal()

    def on_seed(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        if not self._check_seated(env, msg, addr, now, peer_key):
            return
        lob = self._lobby
        if seed_commitment(msg.secret) != self.setup.players[msg.seat].seed_commit:
            self._seat_lied(env, msg, addr, now, "seed reveal does not match commitment",
                            f"seat {msg.seat} revealed a seed secret that does not match its commitment")
            return
        if not self.signing.seed_fits(msg.commits, lob.seats):
            lob.misbehaved(addr, "hidden-information digests missing or of the wrong count", env)
            lob.abort(f"seat {msg.seat} sent a malformed seed reveal")
            return
        self.signing.add_seed(msg.seat, env.raw, msg.secret, msg.commits)
        self._maybe_start()

    # -- internals --------------------------------------------------------------------------------

    def _send_to_seats(self, raw: bytes) -> None:
        for i, addr in enumerate(self.endpoints):
            if i != self.my_seat:
                self._lobby.send(addr, raw)

    def _seat_lied(self, env: Envelope, msg: Any, addr: Any, now: float, blame: str, reason: str) -> None:
        """A SETUP_SIG/SEED signed by the seat it names that proves only that this seat lied
        (protocol.md §C2.2 step 7, "A seat that lies"): a signature over another setup hash, a
        secret its own commitment refuses. Blamed (``LobbyPeerMisbehaved`` ``blame`` with the
        envelope, counted in ``dropped`` and ``seat_lied``). The host removes and bans the seat
        and opens a new round at once, as at ``SETUP_TIMEOUT``; a joiner drops it and waits for
        the host's new round (or its own deadline). Only when that seat is the host's does the
        lobby abort (``reason``): the host signed a setup other than the one it proposed to us."""
        lob = self._lobby
        lob.misbehaved(addr, blame, env)
        lob.count("seat_lied")
        pk = self.setup.players[msg.seat].public_key
        if pk == lob.admission.host_public_key:
            lob.abort(reason)
        elif lob.role == "host":
            lob.restart_round([pk], now)

    def _check_seated(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> bool:
        """May this SETUP_SIG/SEED be used now? One before our PROPOSAL is held
        (``SetupSigning.hold_early``), one after the signing phases dropped. Else it must be
        signed by the seat it names (and have come over that seat's channel when the channel is
        keyed) before anything in it is compared: only then may a setup hash that differs from
        ours blame the seat (``_seat_lied``)."""
        lob = self._lobby
        if lob.phase in _EARLY_PHASES:
            for reason in self.signing.hold_early(env, msg, addr, peer_key):
                lob.drop(reason)
            return False
        if lob.phase not in (SIGNING, REVEALING):
            lob.drop("wrong_phase")
            return False
        if msg.seat >= lob.seats:
            lob.drop("not_seated")
            return False
        p = self.setup.players[msg.seat]
        if peer_key is not None and peer_key != p.x25519_key:
            lob.drop("key_mismatch")
            return False
        if not env.verify(p.public_key):
            lob.drop("bad_signature")
            return False
        if lob.old_setup(msg.setup_hash):
            lob.drop("old_round")  # a late copy of a setup given up (§C2.2 step 7)
            return False
        if msg.setup_hash != self.setup_hash:
            # Proves only its signer: a joiner signs any hash it likes; the host, another setup.
            self._seat_lied(env, msg, addr, now, "setup hash differs from ours",
                            "the host signed another setup than it proposed to us")
            return False
        return True

    def _maybe_reveal(self) -> None:
        lob = self._lobby
        if lob.phase == SIGNING and self.signing.all_signed(lob.seats):
            lob.revealing()
            # What we hold of every seat's leaves (protocol.md §C12.2): every SEED must agree.
            commits = self.signing.commits_digests()
            raw = seal_message(lob.identity, MSG_SEED,
                               SeedReveal(lob.game_id, self.my_seat, self.setup_hash, self.seed_secret, commits))
            self.signing.add_seed(self.my_seat, raw, self.seed_secret, commits)
            self._send_to_seats(raw)
            self._maybe_start()

    def _maybe_start(self) -> None:
        lob = self._lobby
        if lob.phase == REVEALING and self.signing.all_revealed(lob.seats):
            differs = self.signing.disagreement(self.my_seat, lob.seats)
            if differs is not None:
                i, bad, raw = differs
                lob.emit_misbehaved(self.endpoints[i], "seats disagree on hidden-information "
                                    f"commitments of seats {bad}", raw)
                lob.abort(f"seat {i} holds other hidden-information commitments of seats {bad} than we "
                          "do: a seat showed different leaves to different peers")
                return
            self.game_seed = self.signing.game_seed(lob.seats)
            lob.started()
