"""One setup round of a lobby (protocol.md §C2.2 steps 3-7, §C2.3-§C2.5): from the PROPOSAL to
the game's start, or until the host gives the round up.

A round has its own seed secret (a fresh one per round: an old one may have been revealed to a
seat that then vanished), the SETUP_SIG/SEED messages that came before our PROPOSAL, and, once
the setup is fixed, the setup, our seat, every seat's endpoint, every seat's signature and
reveal (``setup_signing.SetupSigning``) and the time of our next re-send. ``Lobby`` holds the
current ``SetupRound`` and starts a new one at step 7; the round checks that a SETUP_SIG/SEED
comes from the seat it names (or was forwarded by another seat), signs, reveals (the host
last), re-sends, catches up a late seat, and says when the game starts; what a contradicting
one proves and who acts on it is its ``lies`` (``setup_lies.SeatLies``, §C2.2 step 7). It
reads the lobby's public state and acts only through the calls of ``RoundHost``.
"""

from __future__ import annotations

from typing import Any, Protocol

from . import const as C
from .beacon import seed_commitment
from .lobby_events import SetupProposed
from .setup_lies import SeatLies
from .setup_signing import DUPLICATE, EQUIVOCATION, MALFORMED, SetupSigning
from .wire import MSG_SEED, MSG_SETUP_SIG, Envelope, Player, SeedReveal, Setup, SetupSig, seal_message, setup_hash

__all__ = ["ABORTED", "LATE_ANSWERS", "LATE_GRACE_S", "REVEALING", "RoundHost", "SIGNING", "STARTED", "SetupRound"]

SIGNING = "signing"
REVEALING = "revealing"
STARTED = "started"
ABORTED = "aborted"
_EARLY_PHASES = ("joining", "waiting")  # admission.JOINING, WAITING: before our PROPOSAL
_DIRECT, _RELAYED = "direct", "relayed"  # _check_seated: from the seat itself / forwarded by another
#: Answers with every envelope we hold to one late seat's re-sends, per seat, round and phase (§C2.2
#: step 5): one answer carries everything we hold then, and the transport is reliable (RV14-C #2).
LATE_ANSWERS = 1
#: Host, revealing at ``SETUP_TIMEOUT`` (§C2.2 step 7, *Late seats*): a seat lacking a SEED is removed
#: only once it has held every SETUP_SIG from us this long — else we send them and wait this once
#: per round. Two of its re-send cycles (``SETUP_RESEND_S``) for one round trip and its SEED, and
#: below ``SETUP_HOST_GRACE`` (10 s) so a joiner's own deadline is still ahead (RV14-C #1).
LATE_GRACE_S = 2 * C.SETUP_RESEND_S


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
    def count(self, key: str) -> None: ...
    def emit_misbehaved(self, addr: Any, reason: str, raw: bytes) -> None: ...
    def abort(self, reason: str, reject_code: int | None = None) -> None: ...
    def old_setup(self, setup_hash: bytes) -> bool: ...
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
        #: Host: our SEED goes to nobody (the others' SEEDs disagree with ours, ``_maybe_reveal``);
        #: False: to every other seat.
        self.seed_withheld = False
        #: Hidden information: the last SEED per seat that came while we still sign (judged
        #: once we hold every seat's leaves, ``_take_seed``).
        self._deferred: dict[int, tuple] = {}
        #: Answers to a late seat's re-sends, per seat and phase (``_answer_late``).
        self._answered: dict[tuple, int] = {}
        #: Revealing: since when (host), when each seat got every SETUP_SIG from us (``_send_held``);
        #: the host's one extension of its deadline (``grace``).
        self._revealing_at: float | None = None
        self._had_all: dict[int, float] = {}
        self._extended = False
        #: The signing phase (setup_signing.py): every seat's SETUP_SIG and SEED, the early
        #: ones held until our PROPOSAL, the hidden-information leaves.
        self.signing = SetupSigning()
        #: What a seat's contradicting SETUP_SIG/SEED proves, and the evidence forwarded (setup_lies.py).
        self.lies = SeatLies(lobby, self)

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
        self._maybe_reveal(now)

    def resend(self, now: float) -> None:
        """Signing and revealing: our SETUP_SIG (and SEED once revealing) to every other seat
        again when ``resend_at`` passed (every ``SETUP_RESEND_S``). Host, revealing for at least
        ``SETUP_RESEND_S``: every SETUP_SIG, once, to each seat whose SEED it still lacks (it may
        lack one another seat withheld from it; §C2.2 step 7, *Host*)."""
        if self.resend_at is not None and now >= self.resend_at:
            own = self.signing.own(self.my_seat)
            self._send_to_seats(own[0])
            if len(own) > 1:
                self._send_seed(own[1])
            self.resend_at = now + C.SETUP_RESEND_S
            if self._revealing_at is not None and now >= self._revealing_at + C.SETUP_RESEND_S:
                for s in self.missing(True):
                    if s != self.my_seat and s not in self._had_all:
                        self._send_held(s, now)

    def missing(self, revealing: bool) -> list[int]:
        """Seats whose SETUP_SIG (``revealing``: or SEED) we lack."""
        return self.signing.missing(self._lobby.seats, revealing)

    def silent(self, revealing: bool) -> list[bytes]:
        """Host at ``SETUP_TIMEOUT`` (§C2.2 step 7): the public keys of the other seats that did
        not confirm this round (``missing``; revealing: also the ``unbacked`` of ``SeatLies``),
        to remove and ban."""
        missing = set(self.missing(revealing)) | (self.lies.unbacked if revealing else set())
        me = self._lobby.identity.public_key
        return [p.public_key for i, p in enumerate(self.setup.players) if i in missing and p.public_key != me]

    def grace(self, now: float) -> float | None:
        """Host at ``SETUP_TIMEOUT`` (§C2.2 step 7, *Late seats*): while revealing, once per round,
        if a seat whose SEED we lack has not held every SETUP_SIG from us for ``LATE_GRACE_S``
        (a seat may have sent ours last, just before the deadline, and withheld it from that
        seat), send those that never had them every SETUP_SIG now and return the later deadline
        (``now + LATE_GRACE_S``); else None: remove the ``silent`` seats. With 2 seats the only
        SETUP_SIG a seat can lack is ours, sent since our PROPOSAL: None."""
        lob = self._lobby
        if self._extended or lob.role != "host" or lob.phase != REVEALING or lob.seats <= 2:
            return None
        late = [s for s in self.missing(True)
                if s != self.my_seat and now - self._had_all.get(s, now) < LATE_GRACE_S]
        if not late:
            return None
        self._extended = True
        for s in late:
            if s not in self._had_all:
                self._send_held(s, now)
        return now + LATE_GRACE_S

    # -- handlers -------------------------------------------------------------------------------

    def on_setup_sig(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        """A SETUP_SIG (§C2.2 steps 4-5), once ``_check_seated``: kept (then our SEED once every
        seat signed), or the proof that its seat lied (``SeatLies``; step 7); one forwarded by
        another seat likewise (step 5, *Late seats*), where a second version proves a lie."""
        how = self._check_seated(env, msg, addr, now, peer_key)
        if how is None:
            return
        outcome = self.signing.add_sig(msg.seat, env, msg.leaves)
        if outcome in (EQUIVOCATION, MALFORMED):  # signed by the seat: it lied (SeatLies.sig_blame)
            self.lies.proven(msg.seat, now, *self.lies.sig_blame(msg.seat, env, outcome), relayed=how == _RELAYED)
            return
        if outcome == DUPLICATE:
            return
        self._maybe_reveal(now)

    def on_seed(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        """A SEED (§C2.2 step 6), once ``_check_seated``: kept (the game starts once every seat
        revealed and the digests agree), or the proof that its seat lied (step 7)."""
        how = self._check_seated(env, msg, addr, now, peer_key)
        if how is None:
            return
        if self.signing.hidden_commits is not None and self._lobby.phase == SIGNING:
            self._deferred[msg.seat] = (env, msg)  # §C12.2: judged once we hold every seat's leaves
            return
        self._take_seed(env, msg, now)

    # -- internals --------------------------------------------------------------------------------

    def _send_to_seats(self, raw: bytes) -> None:
        for i, addr in enumerate(self.endpoints):
            if i != self.my_seat:
                self._lobby.send(addr, raw)

    def _take_seed(self, env: Envelope, msg: Any, now: float) -> None:
        """A checked SEED of the round: a proof against its seat (step 7), or (joiner, §C12.2)
        digests other than ours — forwarded what it concerns (``SeatLies.compare``), not kept
        (``leaves_disagree``: we could not start with it; another version may reach us) —, or
        kept, then our own SEED / the start if due."""
        problem = self.lies.seed_problem(msg.seat, env, msg)
        if problem is not None:
            self.lies.proven(msg.seat, now, *problem)
            return
        self.lies.compare(msg.seat, msg.commits)
        lob = self._lobby
        if lob.role != "host" and msg.commits is not None and msg.commits != self.signing.commits_digests():
            lob.drop("leaves_disagree")
            return
        self.signing.add_seed(msg.seat, env.raw, msg.secret, msg.commits)
        self._maybe_reveal(now)  # the host's SEED goes once it holds every other one

    def _answer_late(self, msg: Any, peer_key: bytes | None, now: float) -> None:
        """A seat still re-sends its SETUP_SIG/SEED of this round (§C2.2 step 5, *Late seats*):
        over its own keyed channel, while we reveal and lack its SEED (it may lack a SETUP_SIG
        another seat withheld from it), or after we started (it may lack a SEED). Send it every
        SETUP_SIG we hold and, once started, every SEED (each seat's own signed envelopes; it
        keeps those it lacks), at most ``LATE_ANSWERS`` times per seat, round and phase; "its
        own keyed channel" (``peer_key``), checked before its signature is."""
        lob, s = self._lobby, msg.seat
        if s >= lob.seats or s == self.my_seat or msg.setup_hash != self.setup_hash \
                or peer_key is None or peer_key != self.setup.players[s].x25519_key:
            return
        if lob.phase == REVEALING and s not in self.missing(True):
            return
        key = (lob.phase, s)
        if self._answered.get(key, 0) >= LATE_ANSWERS:
            return
        self._answered[key] = self._answered.get(key, 0) + 1
        self._send_held(s, now)

    def _send_held(self, s: int, now: float) -> None:
        """To seat ``s``: every SETUP_SIG we hold (revealing: all of them) and, once started, every SEED."""
        lob = self._lobby
        self._had_all.setdefault(s, now)
        for raws in [self.signing.own(i) for i in range(lob.seats) if i != s]:
            for raw in raws[:1 if lob.phase == REVEALING else 2]:
                lob.send(self.endpoints[s], raw)

    def _send_seed(self, raw: bytes) -> None:
        for i in () if self.seed_withheld else range(len(self.endpoints)):
            if i != self.my_seat:
                self._lobby.send(self.endpoints[i], raw)

    def _check_seated(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> str | None:
        """May this SETUP_SIG/SEED be used now? One before our PROPOSAL is held
        (``SetupSigning.hold_early``), one after the signing phases dropped. Else it must be
        signed by the seat it names and have come over that seat's channel when the channel is
        keyed — or over another seat's keyed channel: forwarded (step 5, *Late seats*) —
        before anything in it is compared: only then may a setup hash that differs from ours
        prove anything (``SeatLies.other_hash``). Returns ``_DIRECT``, ``_RELAYED`` or None."""
        lob = self._lobby
        if lob.phase in _EARLY_PHASES:
            for reason in self.signing.hold_early(env, msg, addr, peer_key):
                lob.drop(reason)
            return None
        if lob.phase not in (SIGNING, REVEALING):
            if lob.phase == STARTED:
                self._answer_late(msg, peer_key, now)
            lob.drop("wrong_phase")
            return None
        if msg.seat >= lob.seats:
            lob.drop("not_seated")
            return None
        p = self.setup.players[msg.seat]
        how = _DIRECT
        if peer_key is not None and peer_key != p.x25519_key:
            if not self.lies.is_seat_channel(peer_key):
                lob.drop("key_mismatch")
                return None
            how = _RELAYED
            lob.count("forwarded_in")
        if not env.verify(p.public_key):
            lob.drop("bad_signature")
            return None
        if how == _DIRECT and lob.phase == REVEALING and env.mtype == MSG_SETUP_SIG:
            self._answer_late(msg, peer_key, now)
        if lob.old_setup(msg.setup_hash):
            lob.drop("old_round")  # a late copy of a setup given up (§C2.2 step 7)
            return None
        if msg.setup_hash != self.setup_hash:
            self.lies.other_hash(env, msg, addr, now, peer_key)
            return None
        return how

    def _maybe_reveal(self, now: float) -> None:
        """Every seat signed: phase revealing, and our SEED to every other seat, then the start if
        every seat revealed. The host reveals last, once it holds every other seat's SEED, and
        only if they agree with its digests (§C2.2 step 5): no seat can start before the host
        could, so a lie that makes the host give the round up (step 7) leaves nobody started."""
        lob = self._lobby
        if lob.phase == SIGNING and self.signing.all_signed(lob.seats):
            lob.revealing()
            self._revealing_at = now if lob.role == "host" else None
            deferred, self._deferred = self._deferred, {}
            for env, msg in deferred.values():
                if lob.phase == REVEALING:
                    self._take_seed(env, msg, now)
        waiting = self.signing.missing(lob.seats, True)
        if lob.phase == REVEALING and self.my_seat in waiting and (lob.role != "host" or waiting == [self.my_seat]):
            # What we hold of every seat's leaves (protocol.md §C12.2): every SEED must agree.
            commits = self.signing.commits_digests()
            raw = seal_message(lob.identity, MSG_SEED,
                               SeedReveal(lob.game_id, self.my_seat, self.setup_hash, self.seed_secret, commits))
            self.signing.add_seed(self.my_seat, raw, self.seed_secret, commits)
            if lob.role == "host" and self.signing.disagreement(self.my_seat, lob.seats) is not None:
                self.seed_withheld = True  # the SEEDs disagree (§C12.2): ours to nobody; SeatLies judges
            self._send_seed(raw)
        self._maybe_start(now)

    def _maybe_start(self, now: float) -> None:
        lob = self._lobby
        if lob.phase == REVEALING and self.signing.all_revealed(lob.seats):
            if self.signing.disagreement(self.my_seat, lob.seats) is not None:
                self.lies.disagree(now)  # §C12.2: proven, or left to the host (SeatLies)
                return
            self.game_seed = self.signing.game_seed(lob.seats)
            lob.started()
