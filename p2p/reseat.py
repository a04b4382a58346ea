"""Re-seating a returning player: a dropped seat is played by its player again (protocol.md §C8.9).

Why the agreement rides in the step messages
--------------------------------------------
A drop is decided by votes because the dropped seat's message is *missing*; a re-seat is the
opposite change and cannot be decided the same way: at step k a dropped seat is played by the
bot, so every active peer can apply step k without waiting for anybody outside the active
seats. If the re-seat were a separate vote, one peer could apply step k with the bot while
another, holding the votes a moment earlier, waits for the returning player's message: a fork.

So the agreement travels in the one thing every peer that applies step k holds identically:
the step-k STEP bodies (their digest covers them, §C3.2). The returning player signs a RESEAT
request (type 25) with a fresh hash-chain head; every active seat that holds a fresh, valid
request puts it in the 8th field of its next STEP body; once step k is applied, the seat is
re-seated from step k + 1 when the step-k bodies of ``needed`` active seats carry the same
request (``readmissions``). Every peer, the returning player (a spectator until then) and
``lanopoli verify`` compute the same answer from the same bytes: no race, no vote, no fork.

Why a fresh chain and a new epoch
---------------------------------
The dropped seat's chain was recombined from the escrow (§C8.3): Q peers know every future
reveal of it. The request therefore commits to a new chain (same length as the setup's); its
first reveal is at the first chance step after the re-seat (``OffsetChain``). The re-seat
starts a new escrow epoch like a drop: every active seat, the returning one included, deals
a new escrow (§C8.2), so the seat can be dropped (and its new chain recombined) again.

Only the seat's key can ask (the request is signed with it and names the drop it ends), so a
stranger cannot take a seat; a replayed request of an earlier drop names another
``dropped_at`` and counts for nothing.

Why each seat has a budget of re-seats
--------------------------------------
Every drop and every re-seat starts an epoch, and the epoch is one byte on the wire. A drop
keeps epoch + active seats constant and a re-seat raises it by 2, so the table's room was one
budget: one seat leaving and returning on purpose ~125 times spent it, and every later returning
player stayed with the bot for good. Since version 6 each seat may be re-seated ``MAX_RESEATS``
times (counted from the history: ``readmissions``' ``reseats``); then its requests count for
nothing and nobody else's are touched. At most seats * ``MAX_RESEATS`` re-seats fit in a game,
so epoch + active <= seats + 2 * seats * ``MAX_RESEATS`` and the wire's range never runs out.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from typing import Mapping, Sequence

from . import const as C
from .beacon import HashChain
from .errors import WireError
from .identity import Identity
from .wire import MSG_RESEAT, Envelope, ReseatRequest, Setup, decode_reseat, open_envelope, seal_message

__all__ = ["ReseatRequest", "make_request", "open_request", "needed", "readmissions", "epoch_room", "counts_at",
           "MAX_RESEATS", "has_budget", "OffsetChain", "Carrier", "carry_start", "Reseat", "new_chain", "request_for"]


#: Times one seat may be re-seated in a game (protocol.md §C8.9 'Budget', version 6). Re-seats
#: are the only thing that raises epoch + active (by 2; a drop keeps it, §C8.2), which starts at
#: seats. With every seat at its budget it is at most seats + 2 * seats * MAX_RESEATS, and the
#: largest epoch (every seat but one dropped afterwards) one less: at MAX_SEATS = 8,
#: 8 + 2 * 8 * 15 - 1 = 247 <= MAX_EPOCH = 255 (16 would give 263). So the table's room
#: (``epoch_room``) never refuses anybody; a seat that spends its budget on purpose only spends
#: its own. Cost: a player who really crashes more than 15 times in one game stays with the bot.
MAX_RESEATS = 15


def has_budget(reseats: Mapping[int, int], seat: int) -> bool:
    """True if ``seat`` may be re-seated once more (protocol.md §C8.9 'Budget'): it was re-seated
    fewer than ``MAX_RESEATS`` times so far. ``reseats``: seat -> re-seats in the history up to
    now (absent: never)."""
    return reseats.get(seat, 0) < MAX_RESEATS


def make_request(identity: Identity, game_id: bytes, seat: int, dropped_at: int, chain_head: bytes) -> bytes:
    """The signed RESEAT envelope ``[gid, seat, dropped_at, chain_head]`` (protocol.md §C8.9):
    ``dropped_at`` is the step of the DROP record that took ``seat`` away, ``chain_head`` the
    head h_n of the new chain (n = the setup's chain length). Raises ``LocalProtocolError`` if a field is
    out of its range (p2p/wire.py table)."""
    return seal_message(identity, MSG_RESEAT, ReseatRequest(game_id, seat, dropped_at, chain_head))


def _decode_request(raw: bytes, setup: Setup) -> tuple[Envelope, ReseatRequest] | None:
    """``raw`` as a RESEAT envelope of ``setup``'s game naming one of its seats, signature not
    checked yet; None otherwise (malformed, another type or game, seat out of range)."""
    try:
        env = open_envelope(raw, C.MAX_RESEAT_MSG)
        if env.mtype != MSG_RESEAT:
            return None
        r = decode_reseat(env.body)
    except WireError:
        return None
    if r.game_id != setup.game_id or r.seat >= setup.seats:
        return None
    return env, r


def open_request(raw: bytes, setup: Setup) -> ReseatRequest | None:
    """Decode ``raw`` as a RESEAT envelope of ``setup``'s game signed by the seat it names;
    None otherwise (malformed, another type or game, bad signature)."""
    got = _decode_request(raw, setup)
    if got is None or not got[0].verify(setup.players[got[1].seat].public_key):
        return None
    return got[1]


def needed(seats: int, active: int) -> int:
    """Carriers needed to re-seat (protocol.md §C8.9): the drop quorum Q = floor(seats/2) + 1,
    or every active seat when fewer than Q are active."""
    return min(seats // 2 + 1, active)


def counts_at(sealed_commit: bool, terminal: bool, hidden: bool) -> bool:
    """True if the requests carried by a step's bodies count (protocol.md §C8.9): not at a
    sealed commit step (the next step opens commitments the returning seat never made, §C13),
    not when the step ends the game (the next step is the attestation), never in a game with
    hidden information (the returning player's private shares were not delivered, §C12.6)."""
    return not (sealed_commit or terminal or hidden)


def readmissions(setup: Setup, active: Sequence[bool], drop_steps: Mapping[int, int],
                 fields: Sequence[Sequence[bytes] | None], epoch: int,
                 reseats: Mapping[int, int]) -> dict[int, ReseatRequest]:
    """Seats re-seated after a step (protocol.md §C8.9), from that step's bodies' 8th fields.

    ``active``: active seats during the step; ``drop_steps``: dropped seat -> step of its drop
    record (only seats dropped by the ``bot`` rule); ``fields[i]``: the RESEAT envelopes in
    active seat i's body (None or () when absent; dropped seats' entries are ignored).

    A request counts for carrier i when it is a valid signed RESEAT of this game, of a seat
    other than i, currently dropped, naming that seat's drop step, with budget left
    (``has_budget``: ``reseats`` = seat -> times re-seated earlier in the game, counted from the
    history by the caller; the session's ``Reseat.reseats``, ``verify``'s own count); a carrier counts once per
    seat (its first valid request of that seat). A seat is re-seated when ``needed`` carriers
    carry the same request (same body bytes). At most one request of a seat can reach it (two
    sets of ``needed`` carriers share a carrier, which counts one request per seat).

    ``epoch``: the escrow epoch during the step. Every re-seat starts a new epoch, so seats are
    re-seated (ascending) only while ``epoch`` + active seats + 1 <= ``MAX_EPOCH`` (``epoch_room``):
    the re-seat and a later drop of every active seat but one stay within the wire's epoch range.
    The per-seat budget keeps that room from ever running out (``MAX_RESEATS``); the bound stays
    as the wire's limit (one seat's cycles once spent the table's room:
    tests/p2p/test_redteam_reseat.py, test_redteam_s14_reseat.py).
    Returns {seat: request}. Deterministic: every peer and the verifier get the same answer."""
    if not any(fields):
        return {}  # no body carries a request (every step but a re-seat's): nothing to count
    need = needed(setup.seats, sum(1 for a in active if a))
    carriers: dict[tuple[int, bytes], set[int]] = {}
    found: dict[bytes, ReseatRequest] = {}
    for i, field in enumerate(fields):
        if not field or not active[i]:
            continue
        seen: set[int] = set()
        for raw in field:
            r = open_request(raw, setup)
            if r is None or r.seat == i or r.seat in seen or active[r.seat] \
                    or drop_steps.get(r.seat) != r.dropped_at or not has_budget(reseats, r.seat):
                continue
            seen.add(r.seat)
            key = (r.seat, raw)
            carriers.setdefault(key, set()).add(i)
            found[raw] = r
    out: dict[int, ReseatRequest] = {}
    for (seat, raw), who in sorted(carriers.items()):
        if len(who) >= need and seat not in out:
            out[seat] = found[raw]
    seated = sum(1 for a in active if a)
    for seat in sorted(out):
        if epoch_room(epoch, seated):
            epoch, seated = epoch + 1, seated + 1
        else:
            del out[seat]
    return out


def epoch_room(epoch: int, active: int) -> bool:
    """True if one more seat may be re-seated at ``epoch`` with ``active`` active seats
    (protocol.md §C8.9): its new epoch plus a drop of every active seat but one afterwards stay
    within ``MAX_EPOCH``. Drops keep epoch + active constant, re-seats raise it by 2."""
    return epoch + active + 1 <= C.MAX_EPOCH


class OffsetChain:
    """A re-seated seat's hash chain (protocol.md §C8.9): a ``HashChain`` of the setup's length
    whose first reveal is at the (``base`` + 1)-th chance step of the game (``base`` = chance
    steps applied before the re-seat). Indexing by the game's chance count j, as the session and
    the dropped-seat fill do: ``reveal_at(j)`` = inner ``reveal_at(j - base)``; ``length`` is
    ``base`` + inner length so the exhaustion check stays ``j > length``."""

    def __init__(self, chain: HashChain, base: int) -> None:
        self.inner = chain
        self.base = base
        self.head = chain.head
        self.length = base + chain.length
        self.used = base

    def value(self, i: int) -> bytes:
        """Value h_i of the inner chain (h_0 = the secret, ``value(0)`` as for a ``HashChain``)."""
        return self.inner.value(i)

    def reveal_at(self, j: int) -> bytes:
        """Reveal at the game's j-th chance step (j > ``base``). Raises ``ValueError`` before it."""
        if j <= self.base:
            raise ValueError("this chain's first reveal is after its re-seat")
        return self.inner.reveal_at(j - self.base)


#: Domain of the carry rotation's hash (protocol.md §C8.9 'Carrying').
CARRY_DOMAIN = b"lanopoli/1/reseat-carry\x00"


def carry_start(step: int, seats: int) -> int:
    """The seat a carrier's RESEAT_CARRY slots start from at ``step`` when it holds more fresh
    requests than that (protocol.md §C8.9 'Carrying'): the first 4 bytes of
    SHA-256(``CARRY_DOMAIN`` || ``step`` as 8 bytes big-endian), big-endian, modulo ``seats``.
    The same on every carrier (so each one holding seat d's request carries it at a step whose
    start is d: a quorum of them at once), and no periodic pattern of the steps that carry
    nothing (plain chance steps, §C3.8) can keep a seat from its turn. ``seats`` >= 1."""
    digest = hashlib.sha256(CARRY_DOMAIN + step.to_bytes(8, "big")).digest()
    return int.from_bytes(digest[:4], "big") % seats


class Carrier:
    """The requests an active seat carries in its STEP bodies (protocol.md §C8.9): the latest
    valid RESEAT of each dropped seat and when it arrived. Soft state: a request is carried
    while it was received in the last ``RESEAT_FRESH`` s (the returning peer re-sends it every
    ``RESEAT_RESEND`` s), so a player who asked and left again is not re-seated. Owns nothing
    else; the session tells it which seats are dropped and at which step."""

    def __init__(self, setup: Setup, my_seat: int) -> None:
        self._setup = setup
        self._me = my_seat
        #: seat -> (request envelope, its dropped_at, arrival time in seconds).
        self._held: dict[int, tuple[bytes, int, float]] = {}
        #: Counters for the node's status line.
        self.stats = {"received": 0, "bad": 0, "ignored": 0, "held": 0}

    def receive(self, raw: bytes, now: float, drop_steps: Mapping[int, int]) -> str:
        """Take a RESEAT envelope. Returns "bad" (malformed, other game, bad signature: dropped
        and counted), "ignored" (our own seat, a seat not dropped, or another drop's request) or
        "held". ``drop_steps``: dropped seat -> its drop step (bot rule only). The signature is
        checked last (as §C3.4 orders a step message's checks): a request we would not carry
        costs no Ed25519 verification, whoever sends it."""
        self.stats["received"] += 1
        got = _decode_request(raw, self._setup)
        if got is None:
            self.stats["bad"] += 1
            return "bad"
        env, r = got
        if r.seat == self._me or drop_steps.get(r.seat) != r.dropped_at:
            self.stats["ignored"] += 1
            return "ignored"
        if not env.verify(self._setup.players[r.seat].public_key):
            self.stats["bad"] += 1
            return "bad"
        self._held[r.seat] = (raw, r.dropped_at, now)
        self.stats["held"] += 1
        return "held"

    def field(self, now: float, drop_steps: Mapping[int, int], step: int) -> list[bytes]:
        """The 8th field of our STEP body of ``step``: fresh requests of seats still dropped at
        the step they name, ascending seat, at most ``RESEAT_CARRY``; [] for none. With more
        fresh requests than that, the ``RESEAT_CARRY`` seats first in cyclic order from
        ``carry_start(step, seats)`` (protocol.md §C8.9 'Carrying': every carrier turns alike,
        so no request is kept out for ever). ``step`` is required (H124): the fallback for none,
        the lowest seats first, was the rule §C8.9 replaced (two colluders' requests filled a
        carrier's slots for the rest of the game) and no caller was left without a step."""
        fresh = [seat for seat in sorted(self._held)
                 if drop_steps.get(seat) == self._held[seat][1] and now - self._held[seat][2] <= C.RESEAT_FRESH]
        if len(fresh) > C.RESEAT_CARRY:
            n, r = self._setup.seats, carry_start(step, self._setup.seats)
            fresh = sorted(sorted(fresh, key=lambda seat: (seat - r) % n)[:C.RESEAT_CARRY])
        return [self._held[seat][0] for seat in fresh[:C.RESEAT_CARRY]]

    def forget(self, seat: int) -> None:
        """Stop carrying ``seat``'s request (it was re-seated)."""
        self._held.pop(seat, None)


def new_chain(secret: bytes, setup: Setup) -> HashChain:
    """The returning player's new chain from a fresh 32-byte ``secret`` (kept by the node like
    the first one, mode 0600): ``HashChain(secret, setup.chain_length)``."""
    return HashChain(secret, setup.chain_length)


def request_for(identity: Identity, setup: Setup, seat: int, dropped_at: int, secret: bytes) -> bytes:
    """Our RESEAT envelope for ``seat`` (dropped at ``dropped_at``) with the chain of ``secret``."""
    return make_request(identity, setup.game_id, seat, dropped_at, new_chain(secret, setup).head)


class Reseat:
    """The session's re-seat part (protocol.md §C8.9), owning: the requests we carry
    (``Carrier``), our own request and new chain secret when our seat was dropped and our player
    returns, and when we re-send it. The session asks it for the 8th field of each body it
    signs, feeds it RESEAT envelopes, and after each applied step asks which seats come back
    (``after_step``); it applies them itself (``SeatLoss.readmit``, its reveals, its phase).

    ``hidden``: the game has hidden information (re-seating is not offered, §C8.9)."""

    def __init__(self, setup: Setup, my_seat: int, hidden: bool) -> None:
        self._setup = setup
        self._me = my_seat
        self._hidden = hidden
        self.carrier = Carrier(setup, my_seat)
        #: Our new chain secret (32 bytes) and the RESEAT envelope that commits to it, or None.
        self._secret: bytes | None = None
        self._request: bytes | None = None
        self._request_at: int | None = None
        self._resend_at: float | None = None
        #: Chance steps applied before each seat's re-seat (seat -> b), for its chain's offset.
        self.bases: dict[int, int] = {}
        #: Times each seat was re-seated so far (seat -> count; ``readmitted``, the log replay
        #: included): its budget (``MAX_RESEATS``, §C8.9 'Budget').
        self.reseats: dict[int, int] = {}

    @property
    def offered(self) -> bool:
        """False in a game with hidden information (§C8.9)."""
        return not self._hidden

    def may_return(self, seat: int) -> bool:
        """True if re-seating is offered and ``seat`` has budget left (``has_budget``)."""
        return not self._hidden and has_budget(self.reseats, seat)

    def _budgeted(self, drop_steps: Mapping[int, int]) -> Mapping[int, int]:
        """``drop_steps`` without the seats whose budget is spent: their requests are neither
        held nor carried (they would count for nothing and take a carrier's slot)."""
        if all(has_budget(self.reseats, d) for d in drop_steps):
            return drop_steps
        return {d: k for d, k in drop_steps.items() if has_budget(self.reseats, d)}

    # -- carrier side --

    def receive(self, raw: bytes, now: float, drop_steps: Mapping[int, int]) -> str:
        """A RESEAT envelope arrived: see ``Carrier.receive`` ("ignored" when not offered)."""
        if self._hidden:
            return "ignored"
        return self.carrier.receive(raw, now, self._budgeted(drop_steps))

    def field(self, now: float, drop_steps: Mapping[int, int], step: int) -> list[bytes]:
        """The 8th field of the STEP body we sign now, of ``step`` ([] for none; ``Carrier.field``)."""
        return [] if self._hidden else self.carrier.field(now, self._budgeted(drop_steps), step)

    def after_step(self, active: Sequence[bool], drop_steps: Mapping[int, int],
                   fields: Sequence[Sequence[bytes] | None], sealed_commit: bool,
                   terminal: bool, epoch: int) -> dict[int, ReseatRequest]:
        """Seats re-seated from the next step, given the applied step's bodies' 8th fields
        and the step's escrow ``epoch`` (``readmissions`` with our count of each seat's re-seats,
        gated by ``counts_at``)."""
        if not counts_at(sealed_commit, terminal, self._hidden):
            return {}
        return readmissions(self._setup, active, drop_steps, fields, epoch, self.reseats)

    def readmitted(self, seat: int, base: int) -> None:
        """``seat`` came back after ``base`` chance steps: stop carrying its request, remember
        its chain's offset, count it against its budget; our own request is done."""
        self.carrier.forget(seat)
        self.bases[seat] = base
        self.reseats[seat] = self.reseats.get(seat, 0) + 1
        if seat == self._me:
            self._request = self._resend_at = None

    # -- returning side --

    def ask(self, identity: Identity, secret: bytes, dropped_at: int, now: float) -> bytes:
        """Sign our request to play seat ``my_seat`` again after its drop at ``dropped_at``,
        with the chain of ``secret`` (the caller keeps it first, §C8.9). Returns the envelope
        to broadcast; ``due`` re-sends it every ``RESEAT_RESEND`` s."""
        if self._request is None or self._secret != secret or self._request_at != dropped_at:
            self._request = request_for(identity, self._setup, self._me, dropped_at, secret)
        self._secret, self._request_at = secret, dropped_at
        self._resend_at = now + C.RESEAT_RESEND
        return self._request

    @property
    def asking(self) -> bool:
        """True while our request waits for the carriers."""
        return self._request is not None

    def timer(self) -> float | None:
        """When our request is next re-sent, or None."""
        return self._resend_at

    def due(self, now: float) -> bytes | None:
        """Our request if it is time to re-send it, else None."""
        if self._request is None or self._resend_at is None or now < self._resend_at:
            return None
        self._resend_at = now + C.RESEAT_RESEND
        return self._request

    def our_chain(self, base: int) -> OffsetChain | None:
        """Our new chain once we are re-seated after ``base`` chance steps (None if we never
        asked: a replay without the secret)."""
        if self._secret is None:
            return None
        return OffsetChain(new_chain(self._secret, self._setup), base)

    def secret(self) -> bytes | None:
        """Our new chain secret, if we asked."""
        return self._secret

    def restore(self, secret: bytes) -> None:
        """Our new chain secret after a restart (kept by the node before it asked): a log replay
        that re-seats our seat gives us its chain. Nothing is sent."""
        self._secret = secret


# -- the returning player's secret file (the node's; protocol.md §C8.9, §N5) --

SECRET_SUFFIX = ".reseat"


def write_secret_file(path: str, secret: bytes, dropped_at: int) -> None:
    """Keep our new chain secret before we ask (``<log>.reseat``, created with mode 0600 like
    ``<log>.resume``): JSON ``{"version": 1, "secret": hex (32 bytes), "dropped_at": step}``.
    A restart asking again after the same drop re-uses it (two requests would split the
    carriers), and a log replay that re-seats us needs it (``resume_session(reseat_secret=)``)."""
    data = json.dumps({"version": 1, "secret": secret.hex(), "dropped_at": int(dropped_at)}).encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def read_secret_file(path: str) -> tuple[bytes, int] | None:
    """(secret, dropped_at) from ``write_secret_file``'s file; None if it is missing or
    malformed (then a fresh secret is drawn)."""
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        secret, at = bytes.fromhex(d["secret"]), int(d["dropped_at"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return (secret, at) if len(secret) == 32 and at >= 0 else None


def secret_for(path: str, dropped_at: int) -> bytes:
    """The chain secret of our request to play our seat again after the drop at ``dropped_at``:
    the one kept in ``path`` for that same drop (a restart never makes a second request), else
    a fresh one, kept first (``write_secret_file``)."""
    kept = read_secret_file(path)
    if kept is not None and kept[1] == dropped_at:
        return kept[0]
    secret = secrets.token_bytes(32)
    write_secret_file(path, secret, dropped_at)
    return secret
