"""What a seat may see of a game: the engine's observation API (STYLE.md: OpenSpiel's game owns
its observer), the one door through which p2p/ and ui/ read hidden information.

A state holds everything, including what no player may know (which bill is fake); the layers
above must not depend on how it is laid out (``State.nx`` and its ``NX_*`` positions,
engine/rules/banknotes.py, are the engine's business and change with it). They read instead:

* :func:`public_view` -> :class:`PublicView`: what every seat and every spectator knows (money,
  magnifier tokens, how many cards each keeps, the face-up Imprevisti, the public status of
  every bill and card, the open inspection window, open trade offers);
* :func:`private_view` -> :class:`PrivateView`: what one seat sees of its own holdings (bills
  with the status *it* knows, kept cards, tokens) given its private knowledge;
* small accessors for the hot paths (:func:`has_hidden`, :func:`held_items`,
  :func:`public_status`, :func:`bill_value`...) so a per-step caller builds no view;
* :func:`hidden_items` and :func:`apply_reveal`: the "inspection" phase, whose outcomes the p2p
  layer computes from the seats' shares (protocol.md §C12.5);
* public facts of a timed game (:func:`time_expired`, :func:`absent_vote`: the TimeUp a
  dropped seat casts, protocol.md §C8.4) and of trades (:func:`offer`);
* :func:`choose`: the edition's bot for a seat given its private knowledge ``view``
  (``{("bill", id) | ("card", index): fake}``, a :class:`Knowledge` carrying a per-seat
  secret, or None for a seat nobody knows anything about, protocol.md §C12.6/§C12.7), and the
  bill-choice helpers a player's dialog uses.

Items are ``("bill", id)`` or ``("card", index)`` (Imprevisti card index in its deck). Public
statuses are :data:`UNKNOWN`, :data:`GENUINE`, :data:`FAKE`. Every function is pure and
tolerates a state without hidden information (classico; p2p tests' stand-in engines): the
views are then empty. Rulebook: niente-e-come-sembra ("Se trovate un falso ... tenetelo voi!",
"una delle due" cards of each pair is fake).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple

import importlib

from .bots import choose as _classic_choose
from .game import apply_reveal
from .rules.banknotes import (DENOMINATIONS, FAKE, GENUINE, NX_CARD, NX_CPUB, NX_DEN, NX_FACEUP, NX_HAND,
                              NX_LENS, NX_PUB, NX_WALLET, NX_WIN, UNKNOWN)
from .rules.estate import hotel_half as hotel_sale_price
from .rules.timed import absent_vote
from .rules.timed import expired as time_expired
from .rules.trade import (O_GET, O_GET_CARDS, O_GET_CASH, O_GIVE, O_GIVE_CARDS, O_GIVE_CASH, O_LIFT,
                          O_PARTNER, O_PROPOSER)

__all__ = [
    "PublicView", "PrivateView", "Bill", "Payment", "CardUse", "Offer", "Knowledge", "Item",
    "public_view", "private_view", "has_hidden", "hidden_items", "apply_reveal", "held_items",
    "held_imprevisti", "held_unknown", "public_status", "card_status", "bill_status", "bill_value", "denominations",
    "card_pairs", "fake_threshold", "fake_thresholds", "window_payments", "card_in_use", "faceup_cards", "green_lenses",
    "kept_cards", "offer", "time_expired", "absent_vote", "hotel_sale_price", "choose", "keep_choice", "spend_choice",
    "keep_fakes", "spend_fakes", "bill_order", "choosable_bills", "due_amount", "choice_error",
    "UNKNOWN", "GENUINE", "FAKE", "DENOMINATIONS", "IMPREVISTI",
]

Item = tuple[str, int]

_HIDDEN_API = {
    "Knowledge": ("bots._niente", "PrivateView"), "bill_order": ("bots._niente", "bill_order"),
    "keep_choice": ("bots._niente", "keep_choice"), "keep_fakes": ("bots._niente", "keep_fakes"),
    "spend_choice": ("bots._niente", "spend_choice"), "spend_fakes": ("bots._niente", "spend_fakes"),
    "choice_error": ("rules.bill_choice", "choice_error"), "choosable_bills": ("rules.bill_choice", "choosable_bills"),
    "due_amount": ("rules.bill_choice", "due_amount"), "fake_threshold": ("rules.counterfeit", "fake_threshold"),
    "hidden_items": ("rules.counterfeit", "unknown_items"), "_niente_choose": ("bots._niente", "choose")}
"""The part of this API only a game with hidden information (niente-e-come-sembra) uses, by name:
(module under engine, its name there). Imported on first use (PEP 562 ``__getattr__``), so a
peer playing another edition does not load the niente bot and rules (~1-2 MB of resident set,
issue 14 "peer RSS"); the objects are the very same once imported."""


def __getattr__(name: str) -> Any:
    where = _HIDDEN_API.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"engine.{where[0]}"), where[1])
    globals()[name] = value  # later look-ups skip this function
    return value


def choose(state: Any, seat: int, bot: str = "default", view: Any = None) -> Any:
    """The edition's bot (``engine.bots._niente.choose``, module doc): in a state without hidden
    information that is the classic bot ``engine.bots.choose(state, seat, bot)``, exactly what
    the niente bot returns there, without importing it."""
    if not state.nx:
        return _classic_choose(state, seat, bot)
    return __getattr__("_niente_choose")(state, seat, bot, view)

#: Deck index of the Imprevisti (the only cards that can be fake; a kept card's key is
#: ``deck * 256 + card``).
IMPREVISTI = 1


class Payment(NamedTuple):
    """A payment open to inspection: ``payer`` seat, ``taker`` (seat, -1 the bank: who holds
    the bills now), ``bills`` (ids)."""
    payer: int
    taker: int
    bills: tuple[int, ...]


class CardUse(NamedTuple):
    """A kept card being used while the window is open: ``seat`` using it, ``deck``, ``card``
    index, ``target`` (a square or seat as the card needs, -1 none)."""
    seat: int
    deck: int
    card: int
    target: int


class Offer(NamedTuple):
    """An open trade offer (``State.offers`` entry, engine.rules.trade): what the proposer
    gives and gets (squares, euro, card keys) and the received mortgaged squares it lifts."""
    proposer: int
    partner: int
    give: tuple[int, ...]
    get: tuple[int, ...]
    give_cash: int
    get_cash: int
    give_cards: tuple[int, ...]
    get_cards: tuple[int, ...]
    lift: tuple[int, ...]


class Bill(NamedTuple):
    """One bill as its holder sees it: ``id``, ``value`` (euro), ``status`` "genuine" |
    "fake" | "unknown" (public status, else the holder's knowledge)."""
    id: int
    value: int
    status: str


@dataclass(frozen=True)
class PublicView:
    """What everybody knows (every field indexed by seat where it is per seat).

    ``cash``: euro; ``out``: bankrupt flags; ``lenses``: green magnifier tokens; ``kept``: how
    many cards each seat keeps; ``faceup``: Imprevisti card index per face-up slot (-1 empty);
    ``bill_status`` / ``card_status``: public status by bill id / card index;
    ``denominations``: euro by bill id; ``window``: payments open to inspection;
    ``card_in_use``: the card being used, or None; ``offers``: open trade offers;
    ``time_expired``: a timed game's time is up. Hidden-information fields are empty in an
    edition without it."""
    cash: tuple[int, ...]
    out: tuple[bool, ...]
    lenses: tuple[int, ...]
    kept: tuple[int, ...]
    faceup: tuple[int, ...]
    bill_status: tuple[int, ...]
    card_status: tuple[int, ...]
    denominations: tuple[int, ...]
    window: tuple[Payment, ...]
    card_in_use: CardUse | None
    offers: tuple[Offer, ...]
    time_expired: bool


@dataclass(frozen=True)
class PrivateView:
    """What ``seat`` sees of its own holdings. ``money``: euro; ``bills``: its bills in id
    order with the status it knows; ``kept``: kept card keys (``deck * 256 + card``);
    ``imprevisti``: the Imprevisti it holds (kept or jail card), card indices; ``lenses``: its
    green tokens; ``known``: its private knowledge ``{item: fake}`` (a copy)."""
    seat: int
    money: int
    bills: tuple[Bill, ...]
    kept: tuple[int, ...]
    imprevisti: tuple[int, ...]
    lenses: int
    known: Mapping[Item, bool]

    def by_denomination(self) -> tuple[tuple[int, tuple[Bill, ...]], ...]:
        """``bills`` grouped by value, largest first, every denomination of the edition
        listed (an empty group when the seat has none of it)."""
        values = sorted(set(DENOMINATIONS) | {b.value for b in self.bills}, reverse=True)
        return tuple((v, tuple(b for b in self.bills if b.value == v)) for v in values)


# --- hot-path accessors (no view built) ------------------------------------------------------

def has_hidden(state: Any) -> bool:
    """True if ``state``'s edition has hidden information (bills and fake cards)."""
    return bool(getattr(state, "nx", None))


def denominations(state: Any) -> tuple[int, ...]:
    """Euro by bill id (() without hidden information)."""
    return tuple(state.nx[NX_DEN]) if has_hidden(state) else ()


def bill_value(state: Any, bill: int) -> int:
    """Euro of bill ``bill``; IndexError for an unknown id."""
    return state.nx[NX_DEN][bill]


def card_pairs(state: Any) -> int:
    """Number of Imprevisti pairs (one card of each is fake); 0 without hidden information."""
    return len(state.nx[NX_CPUB]) // 2 if has_hidden(state) else 0


def fake_thresholds(state: Any, modulus: int) -> dict[int, int]:
    """``{denomination: T}`` for the denominations of ``state``'s bills, ascending: a bill is
    fake iff the sum of all seats' shares modulo ``modulus`` is below its T (``fake_threshold``,
    protocol.md §C12.1); ``{}`` without hidden information. What the p2p hidden layer asks the
    engine seam (engine.api.HiddenInformation) instead of reading the edition."""
    threshold = __getattr__("fake_threshold")
    return {d: threshold(state.ed, d, modulus) for d in sorted(set(denominations(state)))}


def public_status(state: Any, item: Item) -> int:
    """UNKNOWN, GENUINE or FAKE: the status of ``item`` everybody knows (after an inspection,
    or a bill the bank printed later, which is genuine)."""
    kind, ident = item
    return state.nx[NX_PUB if kind == "bill" else NX_CPUB][ident]


def card_status(state: Any, card: int, knowledge: Mapping | None = None) -> bool | None:
    """True/False when Imprevisti ``card`` is known fake/genuine — publicly, by its twin's
    public status ("una delle due": card ``card ^ 1`` is the other of its pair), or by
    ``knowledge`` — else None."""
    cpub = state.nx[NX_CPUB]
    if cpub[card]:
        return cpub[card] == FAKE
    if cpub[card ^ 1]:
        return cpub[card ^ 1] != FAKE
    known = (knowledge or {}).get(("card", card))
    return None if known is None else bool(known)


def bill_status(state: Any, bill: int, knowledge: Mapping | None = None) -> str:
    """"genuine" | "fake" | "unknown": the public status of ``bill``, else ``knowledge``'s."""
    pub = state.nx[NX_PUB][bill]
    if pub:
        return "fake" if pub == FAKE else "genuine"
    known = (knowledge or {}).get(("bill", bill))
    return "unknown" if known is None else "fake" if known else "genuine"


def held_items(state: Any, seat: int) -> list[Item]:
    """The items ``seat`` holds now, in a fixed order: its bills (wallet order), then its kept
    Imprevisti, then an Imprevisti held as the jail card (the engine keeps it in ``held`` as in
    classico). The p2p share delivery (protocol.md §C12.3) depends on this order."""
    nx = state.nx
    out: list[Item] = [("bill", b) for b in nx[NX_WALLET][seat]]
    out += [("card", key & 255) for key in list(nx[NX_HAND][seat]) + list(state.held[seat])
            if key >> 8 == IMPREVISTI]
    return out


def held_unknown(state: Any, seat: int) -> tuple[list[int], list[int]]:
    """``(bills, cards)``: the items of ``held_items(state, seat)`` whose status is not public,
    as bill ids (wallet order) and Imprevisti card indices (kept, then jail card) — the hot path
    of the p2p share delivery (protocol.md §C12.3), one pass over the seat's holdings."""
    nx = state.nx
    pub, cpub = nx[NX_PUB], nx[NX_CPUB]
    bills = [b for b in nx[NX_WALLET][seat] if not pub[b]]
    cards = [key & 255 for key in list(nx[NX_HAND][seat]) + list(state.held[seat])
             if key >> 8 == IMPREVISTI and not cpub[key & 255]]
    return bills, cards


def held_imprevisti(state: Any, seat: int) -> list[int]:
    """The Imprevisti card indices ``seat`` holds (kept ones, then the jail card)."""
    return [ident for kind, ident in held_items(state, seat) if kind == "card"]


def window_payments(state: Any) -> tuple[Payment, ...]:
    """The payments open to inspection now (protocol.md §E8 window)."""
    return tuple(Payment(p[0], p[1], tuple(p[2:])) for p in state.nx[NX_WIN]) if has_hidden(state) else ()


def card_in_use(state: Any) -> CardUse | None:
    """The kept card being used in the open window, or None."""
    card = state.nx[NX_CARD] if has_hidden(state) else None
    return CardUse(*card) if card else None


def faceup_cards(state: Any) -> tuple[int, ...]:
    """Imprevisti card index per face-up slot, -1 for an empty slot."""
    return tuple(state.nx[NX_FACEUP]) if has_hidden(state) else ()


def green_lenses(state: Any, seat: int) -> int:
    """``seat``'s green magnifier tokens (0 without hidden information)."""
    return state.nx[NX_LENS][seat] if has_hidden(state) else 0


def kept_cards(state: Any, seat: int) -> tuple[int, ...]:
    """Keys (``deck * 256 + card``) of the cards ``seat`` keeps to use later."""
    return tuple(state.nx[NX_HAND][seat]) if has_hidden(state) else ()


def offer(o: Any) -> Offer:
    """An ``Offer`` from a ``State.offers`` entry."""
    return Offer(o[O_PROPOSER], o[O_PARTNER], tuple(o[O_GIVE]), tuple(o[O_GET]), o[O_GIVE_CASH],
                 o[O_GET_CASH], tuple(o[O_GIVE_CARDS]), tuple(o[O_GET_CARDS]), tuple(o[O_LIFT]))


# --- views ------------------------------------------------------------------------------------

def public_view(state: Any) -> PublicView:
    """Everything every seat knows of ``state`` (see PublicView). O(bills + seats)."""
    n = state.n
    hidden = has_hidden(state)
    nx = state.nx if hidden else None
    return PublicView(
        cash=tuple(state.cash), out=tuple(bool(o) for o in state.out),
        lenses=tuple(nx[NX_LENS]) if hidden else (0,) * n,
        kept=tuple(len(h) for h in nx[NX_HAND]) if hidden else (0,) * n,
        faceup=faceup_cards(state),
        bill_status=tuple(nx[NX_PUB]) if hidden else (), card_status=tuple(nx[NX_CPUB]) if hidden else (),
        denominations=denominations(state), window=window_payments(state), card_in_use=card_in_use(state),
        offers=tuple(offer(o) for o in state.offers), time_expired=time_expired(state))


def private_view(state: Any, seat: int, knowledge: Mapping | None = None) -> PrivateView:
    """What ``seat`` sees of its holdings given its private ``knowledge`` (``{item: fake}``,
    None: nothing known). Raises IndexError for a seat out of range."""
    known = dict(knowledge or {})
    if not has_hidden(state):
        return PrivateView(seat, state.cash[seat], (), (), (), 0, known)
    nx = state.nx
    bills = tuple(Bill(b, nx[NX_DEN][b], bill_status(state, b, known)) for b in sorted(nx[NX_WALLET][seat]))
    return PrivateView(seat, state.cash[seat], bills, tuple(nx[NX_HAND][seat]),
                       tuple(held_imprevisti(state, seat)), nx[NX_LENS][seat], known)
