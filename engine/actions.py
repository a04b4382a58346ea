"""Player actions: frozen dataclasses, imperative nouns (STYLE.md §3).

Wire form (protocol.md part E, "Actions"): ``[code, field1, field2, ...]`` with the fields
in declaration order; ints are ints, tuples are msgpack arrays of ints. ``decode_action``
validates strictly (exact length, exact types, no bools, value ranges) and raises ValueError on
anything else: the network feeds it hostile data.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar, Union

__all__ = [
    "RollDice", "BuyProperty", "DeclineProperty", "Bid", "PassBid", "PayJailFine", "UseJailCard",
    "BuildHouse", "SellBuilding", "Mortgage", "LiftMortgage", "ProposeTrade", "AcceptTrade",
    "RejectTrade", "WithdrawTrade", "ClaimRent", "DeclareBankruptcy", "SettleMortgages",
    "TimeUp", "PayCardFine", "DrawCardInstead", "AuctionProperty",
    "InspectBill", "InspectCard", "TakeCard", "DeclineCard", "UseCard", "SellProperty",
    "PayBills",
    "Action", "ACTION_TYPES", "encode_action", "decode_action", "action_sort_key",
]

# Bounds that keep hostile input small; far above anything a real game reaches.
MAX_INT = 1 << 31
MAX_TUPLE = 64


@dataclass(frozen=True, slots=True)
class RollDice:
    """Roll the dice (the turn's roll, or a try for doubles in jail)."""
    CODE: ClassVar[int] = 1


@dataclass(frozen=True, slots=True)
class BuyProperty:
    """Buy the unowned property you landed on at its printed price."""
    CODE: ClassVar[int] = 2


@dataclass(frozen=True, slots=True)
class DeclineProperty:
    """Do not buy the property you landed on: it goes to auction."""
    CODE: ClassVar[int] = 3


@dataclass(frozen=True, slots=True)
class Bid:
    """Bid in the running auction."""
    CODE: ClassVar[int] = 4
    amount: int
    """Euro; at least the opening bid, or the high bid plus the minimum raise; at most your cash."""


@dataclass(frozen=True, slots=True)
class PassBid:
    """Leave the running auction (you cannot come back into it)."""
    CODE: ClassVar[int] = 5


@dataclass(frozen=True, slots=True)
class PayJailFine:
    """Pay the jail fine before rolling, then roll normally."""
    CODE: ClassVar[int] = 6


@dataclass(frozen=True, slots=True)
class UseJailCard:
    """Use a held "Uscite gratis di prigione" card before rolling, then roll normally."""
    CODE: ClassVar[int] = 7
    deck: int
    """Deck index of the card (classico: 0 Probabilità, 1 Imprevisti)."""


@dataclass(frozen=True, slots=True)
class BuildHouse:
    """Buy one building for a street: a house, or the hotel once the set has 4 houses each."""
    CODE: ClassVar[int] = 8
    square: int
    """Board index of the street."""


@dataclass(frozen=True, slots=True)
class SellBuilding:
    """Sell one building of a street back to the bank at half price."""
    CODE: ClassVar[int] = 9
    square: int
    """Board index of the street."""


@dataclass(frozen=True, slots=True)
class Mortgage:
    """Mortgage a property (no buildings in its colour set) for its mortgage value."""
    CODE: ClassVar[int] = 10
    square: int
    """Board index of the property."""


@dataclass(frozen=True, slots=True)
class LiftMortgage:
    """Lift a mortgage: pay the mortgage value plus 10 % (rounded up)."""
    CODE: ClassVar[int] = 11
    square: int
    """Board index of the property."""


@dataclass(frozen=True, slots=True)
class ProposeTrade:
    """Offer a trade to another player (replaces your previous open offer)."""
    CODE: ClassVar[int] = 12
    partner: int
    """Seat the offer is made to."""
    give_squares: tuple[int, ...]
    """Properties you give (sorted, no duplicates)."""
    get_squares: tuple[int, ...]
    """Properties you receive (sorted, no duplicates)."""
    give_cash: int
    """Euro you pay the partner."""
    get_cash: int
    """Euro the partner pays you."""
    give_cards: tuple[int, ...]
    """Decks of the jail cards you give (sorted); niente-e-come-sembra: keys ``deck*256+card``
    of any kept cards you give."""
    get_cards: tuple[int, ...]
    """Decks of the jail cards you receive (sorted); niente-e-come-sembra: card keys."""
    lift: tuple[int, ...]
    """Mortgaged properties you receive and lift at once (others: you pay the 10 % fee)."""


@dataclass(frozen=True, slots=True)
class AcceptTrade:
    """Accept the open offer a player made to you."""
    CODE: ClassVar[int] = 13
    proposer: int
    """Seat that made the offer."""
    lift: tuple[int, ...]
    """Mortgaged properties you receive and lift at once (others: you pay the 10 % fee)."""


@dataclass(frozen=True, slots=True)
class RejectTrade:
    """Refuse the open offer a player made to you."""
    CODE: ClassVar[int] = 14
    proposer: int
    """Seat that made the offer."""


@dataclass(frozen=True, slots=True)
class WithdrawTrade:
    """Withdraw your own open offer."""
    CODE: ClassVar[int] = 15


@dataclass(frozen=True, slots=True)
class ClaimRent:
    """Ask a player for the rent they owe you (before the next player rolls)."""
    CODE: ClassVar[int] = 16
    square: int
    """Property the debtor landed on."""
    debtor: int
    """Seat that owes the rent."""


@dataclass(frozen=True, slots=True)
class DeclareBankruptcy:
    """Give up: only when selling and mortgaging everything cannot cover the debt."""
    CODE: ClassVar[int] = 17


@dataclass(frozen=True, slots=True)
class SettleMortgages:
    """After receiving a bankrupt's mortgaged properties: lift some, pay the 10 % on the rest."""
    CODE: ClassVar[int] = 18
    lift: tuple[int, ...]
    """Properties to lift now (sorted); every other received mortgaged property pays 10 %."""


# Codes 30-39: editrice-giochi / fabrianopoli / lobby options (engine.rules.timed, cards, sale).
@dataclass(frozen=True, slots=True)
class TimeUp:
    """Timed game: the agreed time has expired (any seat; idempotent). The game ends at the
    end of the current turn (engine.rules.timed)."""
    CODE: ClassVar[int] = 30


@dataclass(frozen=True, slots=True)
class PayCardFine:
    """"Pagate una multa ... oppure prendete un cartoncino": pay the card's fine."""
    CODE: ClassVar[int] = 31


@dataclass(frozen=True, slots=True)
class DrawCardInstead:
    """"Pagate una multa ... oppure prendete un cartoncino": draw from the other deck."""
    CODE: ClassVar[int] = 32


@dataclass(frozen=True, slots=True)
class AuctionProperty:
    """Fabrianopoli: a debtor auctions one of its unbuilt properties, opening at its price."""
    CODE: ClassVar[int] = 33
    square: int
    """Board index of the property."""


# Codes 40-49: niente-e-come-sembra (engine.rules.counterfeit, faceup_cards, niente_estate,
# bill_choice).
@dataclass(frozen=True, slots=True)
class InspectBill:
    """Spend a green magnifier token on one bill of another player's payment (inspect_window)."""
    CODE: ClassVar[int] = 40
    bill: int
    """Bill id (engine.rules.banknotes)."""


@dataclass(frozen=True, slots=True)
class InspectCard:
    """Spend a green magnifier token on the Imprevisti another player is using."""
    CODE: ClassVar[int] = 41


@dataclass(frozen=True, slots=True)
class TakeCard:
    """Take a face-up Imprevisti after landing on Imprevisti (a held one goes under the deck)."""
    CODE: ClassVar[int] = 42
    slot: int
    """Face-up slot 0..2."""


@dataclass(frozen=True, slots=True)
class DeclineCard:
    """Take no face-up Imprevisti."""
    CODE: ClassVar[int] = 43


@dataclass(frozen=True, slots=True)
class UseCard:
    """Use a kept card (Imprevisti: others may inspect it first)."""
    CODE: ClassVar[int] = 44
    deck: int
    """Deck index (0 Probabilità, 1 Imprevisti)."""
    card: int
    """Card index in its deck."""
    target: int
    """Square the card acts on (rent claim square, street for a hotel), or -1."""


@dataclass(frozen=True, slots=True)
class SellProperty:
    """While raising money: sell a property back to the bank at its printed price (its hotel,
    if any, at half price)."""
    CODE: ClassVar[int] = 45
    square: int
    """Board index of the property."""


@dataclass(frozen=True, slots=True)
class PayBills:
    """Phase "pay_bills": pay your oldest payment waiting for its bills with these bills instead
    of the default ones (engine.rules.bill_choice)."""
    CODE: ClassVar[int] = 46
    bills: tuple[int, ...]
    """Bill ids (sorted, no duplicates): yours before the payment, worth at least the amount,
    none to spare."""


Action = Union[RollDice, BuyProperty, DeclineProperty, Bid, PassBid, PayJailFine, UseJailCard,
               BuildHouse, SellBuilding, Mortgage, LiftMortgage, ProposeTrade, AcceptTrade,
               RejectTrade, WithdrawTrade, ClaimRent, DeclareBankruptcy, SettleMortgages, TimeUp,
               PayCardFine, DrawCardInstead, AuctionProperty, InspectBill, InspectCard, TakeCard,
               DeclineCard, UseCard, SellProperty, PayBills]

ACTION_TYPES: dict[int, type] = {cls.CODE: cls for cls in (
    RollDice, BuyProperty, DeclineProperty, Bid, PassBid, PayJailFine, UseJailCard, BuildHouse,
    SellBuilding, Mortgage, LiftMortgage, ProposeTrade, AcceptTrade, RejectTrade, WithdrawTrade,
    ClaimRent, DeclareBankruptcy, SettleMortgages, TimeUp, PayCardFine, DrawCardInstead,
    AuctionProperty, InspectBill, InspectCard, TakeCard, DeclineCard, UseCard, SellProperty,
    PayBills)}

# Per code: tuple of booleans, True where the field is a tuple of ints.
_SCHEMA: dict[int, tuple[bool, ...]] = {
    code: tuple(str(f.type).startswith("tuple") for f in fields(cls))
    for code, cls in ACTION_TYPES.items()}


def encode_action(a: Action) -> list:
    """``[code, *fields]``, tuples as lists: msgpack-able, canonical."""
    out: list = [a.CODE]
    for v in (getattr(a, f.name) for f in fields(a)):
        out.append(list(v) if isinstance(v, tuple) else v)
    return out


def _check_int(v: object) -> int:
    if type(v) is not int or not -MAX_INT <= v < MAX_INT:
        raise ValueError("field must be an int in range")
    return v


def decode_action(obj: object) -> Action:
    """Inverse of :func:`encode_action`. Raises ValueError on anything malformed (wrong container
    type, unknown code, wrong arity, non-int or bool fields, oversized or unsorted tuples)."""
    if not isinstance(obj, (list, tuple)) or not obj:
        raise ValueError("action must be a non-empty array")
    code = obj[0]
    if type(code) is not int or code not in ACTION_TYPES:
        raise ValueError(f"unknown action code {code!r}")
    schema = _SCHEMA[code]
    if len(obj) != 1 + len(schema):
        raise ValueError(f"action {code}: expected {len(schema)} fields, got {len(obj) - 1}")
    args = []
    for is_tuple, v in zip(schema, obj[1:]):
        if is_tuple:
            if not isinstance(v, (list, tuple)) or len(v) > MAX_TUPLE:
                raise ValueError("field must be an array of at most 64 ints")
            t = tuple(_check_int(x) for x in v)
            if list(t) != sorted(set(t)):
                raise ValueError("array fields must be sorted without duplicates")
            args.append(t)
        else:
            args.append(_check_int(v))
    return ACTION_TYPES[code](*args)


def action_sort_key(a: Action) -> tuple:
    """Total order used by ``legal_actions``: by code, then fields."""
    return tuple(tuple(x) if isinstance(x, list) else (x,) for x in encode_action(a))
