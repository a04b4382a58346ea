"""The signing phase of a lobby (protocol.md §C2.3-§C2.5, §C12.2): what each seat signed and
revealed, kept apart from the lobby's joining and routing (issue 13).

A ``SetupSigning`` belongs to one ``lobby.Lobby``. It holds every seat's SETUP_SIG and SEED
envelope, the SETUP_SIG/SEED messages that came before our PROPOSAL (one per source and type,
``hold_early``) and, in an edition with hidden information, every seat's committed leaves. The
lobby checks who sent a message (game id, phase, seat, channel key, signature) before handing
it here; this object decides what the checked message means: a duplicate, an equivocation, a
malformed commitment, or one more seat signed / revealed. It sends nothing and raises no
events: it answers, and the lobby acts (drops, aborts, blames).
"""

from __future__ import annotations

from typing import Any

from . import const as C
from .beacon import game_seed as compute_game_seed
from .hidden import hidden_secret, layout_for_setup, leaves_digest, make_leaves
from .wire import Envelope, Setup, open_envelope

__all__ = ["DUPLICATE", "EQUIVOCATION", "MALFORMED", "SIGNED", "SetupSigning"]

SIGNED = "signed"
DUPLICATE = "duplicate"
EQUIVOCATION = "equivocation"
MALFORMED = "malformed"


class SetupSigning:
    """Every seat's signatures and reveals of one setup.

    ``hidden_commits`` (public, read-only): every seat's leaves in seat order once the setup
    is known in an edition with hidden information (b"" for a seat not heard yet), else None.
    """

    def __init__(self) -> None:
        self._sigs: dict[int, bytes] = {}  # seat -> raw SETUP_SIG envelope
        self._seeds: dict[int, tuple] = {}  # seat -> (raw SEED envelope, secret, leaves digests or None)
        self._early: dict[tuple, tuple] = {}  # SETUP_SIG/SEED before PROPOSAL (``hold_early``)
        self._layout: Any = None
        self.hidden_commits: list[bytes] | None = None

    # -- before the PROPOSAL --

    def hold_early(self, env: Envelope, msg: Any, addr: Any, peer_key: bytes | None) -> list[str]:
        """Keep a SETUP_SIG/SEED that came before our PROPOSAL (other seats may sign first:
        different senders, no global order); nothing can be checked yet. One entry per
        (source, type): a source is the X25519 key of the keyed channel it came over (the
        transport rate-limits the keys strangers introduce, protocol.md §N2.2), or the address
        of a plain channel. Entries from plain channels never push out those from keyed ones
        (``EARLY_BUFFER`` keyed, a quarter of it plain, the oldest dropped first); each costs
        one signature check when the PROPOSAL comes. Returns the drop reasons to count
        (``buffer_replaced``, ``buffer_full``)."""
        drops = []
        keyed = peer_key is not None
        key = (keyed, peer_key if keyed else addr, env.mtype)
        buf = self._early
        if buf.pop(key, None) is not None:
            drops.append("buffer_replaced")
        same = [k for k in buf if k[0] == keyed]
        if len(same) >= (C.EARLY_BUFFER if keyed else C.EARLY_BUFFER // 4):
            del buf[same[0]]
            drops.append("buffer_full")
        buf[key] = (env, msg, addr, peer_key)
        return drops

    def take_early(self) -> list[tuple]:
        """The held early messages as (env, msg, addr, peer_key), oldest first; forgotten here."""
        early, self._early = self._early, {}
        return list(early.values())

    # -- signing (§C2.3, §C12.2) --

    def start(self, setup: Setup, my_seat: int, chain_secret: bytes, game_id: bytes) -> bytes | None:
        """The setup is known: our leaves (hidden information: committed here, signed before
        any seed secret is revealed, kept in the log header), or None in an edition without
        hidden information."""
        self._layout = layout_for_setup(setup)
        if self._layout is None:
            return None
        mine = make_leaves(hidden_secret(chain_secret), game_id, my_seat, self._layout.items)
        self.hidden_commits = [b""] * setup.seats
        self.hidden_commits[my_seat] = mine
        return mine

    def signed_by_us(self, seat: int, raw: bytes) -> None:
        """Our own SETUP_SIG envelope for ``seat``."""
        self._sigs[seat] = raw

    def add_sig(self, seat: int, env: Envelope, leaves: bytes | None) -> str:
        """A checked SETUP_SIG of ``seat`` carrying ``leaves``: ``SIGNED``; ``DUPLICATE`` (the
        same again: nothing changes); ``EQUIVOCATION`` (a different one signed by the same
        seat, e.g. other leaves); ``MALFORMED`` (hidden-information leaves missing, unexpected
        or of the wrong size)."""
        held = self._sigs.get(seat)
        if held is not None:
            if held != env.raw and open_envelope(held).body != env.body:
                return EQUIVOCATION
            return DUPLICATE  # a buffered copy may repeat
        lay = self._layout
        if (lay is None) != (leaves is None) or (lay is not None and len(leaves) != 32 * lay.items):
            return MALFORMED
        if lay is not None:
            self.hidden_commits[seat] = leaves
        self._sigs[seat] = env.raw
        return SIGNED

    def all_signed(self, seats: int) -> bool:
        """True once every seat's SETUP_SIG is held."""
        return len(self._sigs) == seats

    def commits_digests(self) -> tuple | None:
        """What we hold of every seat's leaves, one digest per seat (protocol.md §C12.2: every
        SEED must carry the same), or None without hidden information."""
        if self.hidden_commits is None:
            return None
        return tuple(leaves_digest(lv) for lv in self.hidden_commits)

    # -- revealing (§C2.4) --

    def seed_fits(self, commits: tuple | None, seats: int) -> bool:
        """True if a SEED's leaves digests are there exactly when the edition has hidden
        information, one per seat."""
        return (self._layout is None) == (commits is None) and (commits is None or len(commits) == seats)

    def add_seed(self, seat: int, raw: bytes, secret: bytes, commits: tuple | None) -> None:
        """A checked SEED of ``seat`` (its secret matches its commitment); the first one counts."""
        self._seeds.setdefault(seat, (raw, secret, commits))

    def all_revealed(self, seats: int) -> bool:
        """True once every seat's SEED is held."""
        return len(self._seeds) == seats

    def missing(self, seats: int, revealing: bool) -> list[int]:
        """Seats whose SETUP_SIG (or, ``revealing``, SEED) we still lack."""
        return sorted(set(range(seats)) - set(self._seeds if revealing else self._sigs))

    def disagreement(self, my_seat: int, seats: int) -> tuple[int, list[int], bytes] | None:
        """The first seat whose SEED holds other leaves digests than ours, as (seat, the seats
        whose digests differ, its SEED envelope): a seat showed different leaves to different
        peers (§C12.2). None if all agree."""
        mine = self._seeds[my_seat][2]
        for i in range(seats):
            theirs = self._seeds[i][2]
            if theirs != mine:
                return i, [j for j in range(seats) if theirs[j] != mine[j]], self._seeds[i][0]
        return None

    def game_seed(self, seats: int) -> bytes:
        """The game seed from every seat's revealed secret in seat order (§C2.4)."""
        return compute_game_seed([self._seeds[i][1] for i in range(seats)])

    def secret(self, seat: int) -> bytes:
        """The seed secret ``seat`` revealed."""
        return self._seeds[seat][1]

    def own(self, seat: int) -> list[bytes]:
        """Our SETUP_SIG envelope, then our SEED envelope once revealed (``seat``: ours), for
        the lobby's re-sends (``const.SETUP_RESEND_S``)."""
        out = [self._sigs[seat]] if seat in self._sigs else []
        if seat in self._seeds:
            out.append(self._seeds[seat][0])
        return out

    def sig(self, seat: int) -> bytes | None:
        """The SETUP_SIG envelope of ``seat`` we hold (ours or the first one checked), or None."""
        return self._sigs.get(seat)

    def claims(self, seats: int) -> list[tuple | None]:
        """Per seat, the leaves digests its SEED carries (``SeedReveal.commits``, decoded when it was
        checked), in seat order; every seat's SEED must be held."""
        return [self._seeds[i][2] for i in range(seats)]

    def header_envelopes(self, seats: int) -> tuple[list[bytes], list[bytes]]:
        """([SETUP_SIG envelope per seat], [SEED envelope per seat]) for the log header."""
        return [self._sigs[i] for i in range(seats)], [self._seeds[i][0] for i in range(seats)]
