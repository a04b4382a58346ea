"""Events: what happened, past tense (STYLE.md §3). Frozen dataclasses of ints and strs.

Seats are ints 0..n-1; -1 stands for the bank. Money in euro. ``encode_event`` gives
``[class name, *fields]`` for logs and JSON summaries.
"""
from __future__ import annotations

from dataclasses import MISSING, dataclass, fields

__all__ = ["encode_event", "BANK", "event", "maker"]

BANK = -1
"""The bank, where a seat is expected."""


def event(cls):
    """Class decorator of every event: ``dataclass(frozen=True, slots=True)`` (immutable,
    typed, documented fields; equality, hash, repr, ``fields()`` and ``replace()`` as for any
    frozen dataclass), with a faster ``__init__``.

    Why: the engine creates several events per step, and the frozen dataclass ``__init__``
    sets each field with ``object.__setattr__`` (a method lookup and a generic attribute
    store per field). The replacement stores each field through its slot's member descriptor
    (``type(cls.f).__set__``, bound once), which is the store ``object.__setattr__`` ends in,
    without the lookup; the instance is still immutable afterwards (``__setattr__`` raises
    ``FrozenInstanceError``). Same parameters, same order, no defaults: a wrong call raises
    TypeError as before. Classes with a field default keep the dataclass ``__init__``."""
    cls = dataclass(frozen=True, slots=True)(cls)
    fs = fields(cls)
    if any(f.default is not MISSING or f.default_factory is not MISSING for f in fs):
        return cls
    names = [f.name for f in fs]
    setters = [cls.__dict__[n].__set__ for n in names]
    args = ", ".join(names)
    body = "".join(f"        _s{i}(self, {n})\n" for i, n in enumerate(names)) or "        pass\n"
    src = (f"def _make({', '.join(f'_s{i}' for i in range(len(names)))}):\n"
           f"    def __init__(self{', ' if names else ''}{args}):\n{body}"
           f"    return __init__\n")
    ns: dict = {}
    exec(src, {}, ns)  # noqa: S102 - generated from the class's own field names only
    init = ns["_make"](*setters)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__annotations__ = dict(cls.__init__.__annotations__)
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init
    _MAKERS[cls] = _maker_for(cls, names)
    return cls


_MAKERS: dict = {}


def _maker_for(cls, names: list):
    """The fast constructor of ``maker``: builds the instance as an object of a private
    mutable twin class with the same ``__slots__`` (plain slot stores, which the interpreter
    specialises), then gives it its real class (``__class__`` assignment is allowed between
    classes of identical layout). Generated from the class's own field names only."""
    twin = type(f"_{cls.__name__}Builder", (), {"__slots__": cls.__slots__})
    args = ", ".join(names)
    body = "".join(f"    o.{n} = {n}\n" for n in names)
    # ``_twin()``, not ``object.__new__(_twin)``: calling the class is the cheaper way to the
    # same empty instance (no attribute lookup of ``__new__``, no argument tuple to check).
    src = (f"def make({args}):\n    o = _twin()\n{body}    o.__class__ = _cls\n"
           f"    return o\n")
    ns: dict = {"_twin": twin, "_cls": cls}
    exec(src, ns)  # noqa: S102 - generated from the class's own field names only
    make = ns["make"]
    make.__qualname__ = make.__name__ = f"make_{cls.__name__}"
    make.__module__ = cls.__module__
    return make


def maker(cls):
    """A function that builds a ``cls`` event from its fields in order, positional only in
    practice: ``maker(Moved)(seat, frm, to) == Moved(seat, frm, to)``, the same class, equal,
    same hash, just as frozen. For the engine's hot paths (several events per step): about
    0.6x the cost of calling the class, whose ``__init__`` must store through the frozen
    class's slot descriptors one method call at a time. Raises KeyError for a class with a
    field default (it keeps the dataclass ``__init__``)."""
    return _MAKERS[cls]




@event
class FirstPlayerRolled:
    """One round of the "who starts" roll."""
    seats: tuple[int, ...]
    """Seats that rolled in this round."""
    totals: tuple[int, ...]
    """Their two-dice totals, parallel to ``seats``."""


@event
class TurnStarted:
    """A seat's turn begins."""
    seat: int
    """Seat whose turn it is."""


@event
class DiceRolled:
    """Two dice were rolled for a seat."""
    seat: int
    """Seat that rolled."""
    d1: int
    """First die, 1..6."""
    d2: int
    """Second die, 1..6."""


@event
class Moved:
    """A token moved."""
    seat: int
    """Seat of the token."""
    frm: int
    """Square left."""
    to: int
    """Square reached."""


@event
class MoneyPaid:
    """Money changed hands (salary, tax, card, fine, rent, building, mortgage, trade)."""
    payer: int
    """Seat paying, or BANK."""
    payee: int
    """Seat paid, or BANK."""
    amount: int
    """Euro."""
    reason: str
    """Stable English tag: "salary", "tax", "card", "jail_fine", "rent", "purchase", "auction",
    "house", "sale", "mortgage", "lift", "mortgage_fee", "trade", "bankruptcy"."""


@event
class PropertyBought:
    """A property went from the bank to a player."""
    seat: int
    """Buyer."""
    square: int
    """Property."""
    price: int
    """Euro paid."""


@event
class AuctionStarted:
    """An auction opened."""
    square: int
    """Property (or street for a building-shortage auction)."""
    kind: str
    """"property" or "building"."""


@event
class BidPlaced:
    """A bid became the high bid at the end of an auction step."""
    seat: int
    """Bidder."""
    amount: int
    """Euro."""


@event
class BidPassed:
    """A bidder left the auction (PassBid or no input)."""
    seat: int
    """Seat that left."""


@event
class AuctionEnded:
    """An auction closed."""
    square: int
    """Property auctioned."""
    winner: int
    """Seat that won, or BANK when nobody bid."""
    amount: int
    """Winning bid in euro (0 when nobody bid)."""


@event
class BidOffered:
    """A bid of an auction step that did not become the sole high bid: beaten by a higher
    bid of the same step, or equal to the highest (AuctionTied follows). Every bid of a step
    is told: these first (turn order from the current player), then BidPlaced or AuctionTied
    (engine.rules.auction.end_step; issue 11, defect 9)."""
    seat: int
    """Bidder."""
    amount: int
    """Euro."""


@event
class AuctionTied:
    """The highest bid of an auction step was made by two or more seats: nobody holds the
    high bid; every seat still in bids again, at least ``amount`` + the minimum raise; if
    nobody raises, the tied seats roll for the lot (AuctionTieRolled)."""
    seats: tuple[int, ...]
    """The tied bidders, in seat order."""
    amount: int
    """The tied bid in euro."""


@event
class AuctionTieRolled:
    """One round of the roll between tied bidders that nobody outbid (like the "who starts"
    roll: the highest two-dice total wins, ties roll again among the tied)."""
    seats: tuple[int, ...]
    """Seats that rolled in this round."""
    totals: tuple[int, ...]
    """Their two-dice totals, parallel to ``seats``."""


@event
class RentDue:
    """A player landed on another's property: rent can be claimed."""
    creditor: int
    """Owner."""
    debtor: int
    """Player who landed."""
    square: int
    """Property."""
    amount: int
    """Euro."""


@event
class RentLapsed:
    """The next player rolled before the owner claimed: the rent is no longer due."""
    creditor: int
    """Owner."""
    debtor: int
    """Player who owed it."""
    square: int
    """Property."""


@event
class DebtOpened:
    """A player must pay more than their cash: they must raise money or go bankrupt."""
    debtor: int
    """Seat that owes."""
    creditor: int
    """Seat owed, or BANK."""
    amount: int
    """Euro."""


@event
class CardDrawn:
    """A card was drawn."""
    seat: int
    """Seat that drew it."""
    deck: int
    """Deck index."""
    card: int
    """Card index in the edition's deck."""


@event
class JailCardUsed:
    """An "Uscite gratis di prigione" card was used and went back under its deck."""
    seat: int
    """Seat that used it."""
    deck: int
    """Deck index."""


@event
class SentToJail:
    """A player went to jail."""
    seat: int
    """Seat jailed."""
    why: str
    """"square", "card" or "doubles"."""


@event
class LeftJail:
    """A player left jail."""
    seat: int
    """Seat freed."""
    how: str
    """"fine", "card", "doubles" or "third_turn"."""


@event
class BuildingBought:
    """A house or hotel was built."""
    seat: int
    """Owner."""
    square: int
    """Street."""
    level: int
    """New level: 1..4 houses, 5 hotel."""


@event
class BuildingSold:
    """Buildings were sold back to the bank."""
    seat: int
    """Owner."""
    square: int
    """Street."""
    level: int
    """New level: 0..4 houses."""


@event
class PropertyMortgaged:
    """A property was mortgaged."""
    seat: int
    """Owner."""
    square: int
    """Property."""


@event
class MortgageLifted:
    """A mortgage was lifted."""
    seat: int
    """Owner."""
    square: int
    """Property."""


@event
class TradeProposed:
    """An offer was made."""
    proposer: int
    """Seat offering."""
    partner: int
    """Seat offered to."""


@event
class TradeClosed:
    """An offer ended."""
    proposer: int
    """Seat that offered."""
    partner: int
    """Seat offered to."""
    outcome: str
    """"accepted", "rejected", "withdrawn" or "void" (no longer possible)."""


@event
class PropertyTransferred:
    """A property changed owner between players (trade or bankruptcy)."""
    frm: int
    """Previous owner."""
    to: int
    """New owner."""
    square: int
    """Property."""


@event
class WentBankrupt:
    """A player went bankrupt and left the game."""
    seat: int
    """Seat eliminated."""
    creditor: int
    """Seat that received the estate, or BANK."""


@event
class GameWon:
    """Only one player is left."""
    seat: int
    """Winner."""


@event
class ActionRefused:
    """An input was illegal when applied; nothing changed."""
    seat: int
    """Seat that sent it."""
    action_code: int
    """Action code (engine.actions)."""
    reason: str
    """IllegalAction.code, a stable machine code."""


@event
class TimeVoted:
    """Timed game: a seat still in says the agreed time is up (its first TimeUp)."""
    seat: int
    """Seat that voted."""
    votes: int
    """Votes of seats still in, this one included."""
    needed: int
    """Votes needed: a strict majority of the seats still in."""


@event
class TimeExpired:
    """Timed game: a strict majority of the seats still in said the time is up; the game ends
    at the end of this turn."""
    seat: int
    """Seat whose vote made the majority (-1: a bankruptcy shrank the seats still in)."""


@event
class ContractDealt:
    """Editrice Giochi: a contract dealt at the start (the price is paid to the bank)."""
    seat: int
    """Seat receiving it."""
    square: int
    """The property."""


@event
class CardChoiceOffered:
    """A "pay a fine or draw" card waits for the player's choice."""
    seat: int
    """Seat to choose."""
    amount: int
    """Euro of the fine."""
    deck: int
    """Deck to draw from instead."""


def encode_event(e) -> list:
    """``[class name, *fields]``; tuples become lists (JSON- and msgpack-able)."""
    out: list = [type(e).__name__]
    for f in fields(e):
        v = getattr(e, f.name)
        out.append(list(v) if isinstance(v, tuple) else v)
    return out


__all__ += [n for n, v in list(globals().items())
            if isinstance(v, type) and hasattr(v, "__dataclass_fields__")]
