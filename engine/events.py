"""Events: what happened, past tense (STYLE.md §3). Frozen dataclasses of ints and strs.

Seats are ints 0..n-1; -1 stands for the bank. Money in euro. ``encode_event`` gives
``[class name, *fields]`` for logs and JSON summaries.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = ["encode_event", "BANK"]

BANK = -1
"""The bank, where a seat is expected."""


def _event(cls):
    return dataclass(frozen=True, slots=True)(cls)


@_event
class FirstPlayerRolled:
    """One round of the "who starts" roll."""
    seats: tuple[int, ...]
    """Seats that rolled in this round."""
    totals: tuple[int, ...]
    """Their two-dice totals, parallel to ``seats``."""


@_event
class TurnStarted:
    """A seat's turn begins."""
    seat: int
    """Seat whose turn it is."""


@_event
class DiceRolled:
    """Two dice were rolled for a seat."""
    seat: int
    """Seat that rolled."""
    d1: int
    """First die, 1..6."""
    d2: int
    """Second die, 1..6."""


@_event
class Moved:
    """A token moved."""
    seat: int
    """Seat of the token."""
    frm: int
    """Square left."""
    to: int
    """Square reached."""


@_event
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


@_event
class PropertyBought:
    """A property went from the bank to a player."""
    seat: int
    """Buyer."""
    square: int
    """Property."""
    price: int
    """Euro paid."""


@_event
class AuctionStarted:
    """An auction opened."""
    square: int
    """Property (or street for a building-shortage auction)."""
    kind: str
    """"property" or "building"."""


@_event
class BidPlaced:
    """A bid became the high bid at the end of an auction step."""
    seat: int
    """Bidder."""
    amount: int
    """Euro."""


@_event
class BidPassed:
    """A bidder left the auction (PassBid or no input)."""
    seat: int
    """Seat that left."""


@_event
class AuctionEnded:
    """An auction closed."""
    square: int
    """Property auctioned."""
    winner: int
    """Seat that won, or BANK when nobody bid."""
    amount: int
    """Winning bid in euro (0 when nobody bid)."""


@_event
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


@_event
class RentLapsed:
    """The next player rolled before the owner claimed: the rent is no longer due."""
    creditor: int
    """Owner."""
    debtor: int
    """Player who owed it."""
    square: int
    """Property."""


@_event
class DebtOpened:
    """A player must pay more than their cash: they must raise money or go bankrupt."""
    debtor: int
    """Seat that owes."""
    creditor: int
    """Seat owed, or BANK."""
    amount: int
    """Euro."""


@_event
class CardDrawn:
    """A card was drawn."""
    seat: int
    """Seat that drew it."""
    deck: int
    """Deck index."""
    card: int
    """Card index in the edition's deck."""


@_event
class JailCardUsed:
    """An "Uscite gratis di prigione" card was used and went back under its deck."""
    seat: int
    """Seat that used it."""
    deck: int
    """Deck index."""


@_event
class SentToJail:
    """A player went to jail."""
    seat: int
    """Seat jailed."""
    why: str
    """"square", "card" or "doubles"."""


@_event
class LeftJail:
    """A player left jail."""
    seat: int
    """Seat freed."""
    how: str
    """"fine", "card", "doubles" or "third_turn"."""


@_event
class BuildingBought:
    """A house or hotel was built."""
    seat: int
    """Owner."""
    square: int
    """Street."""
    level: int
    """New level: 1..4 houses, 5 hotel."""


@_event
class BuildingSold:
    """Buildings were sold back to the bank."""
    seat: int
    """Owner."""
    square: int
    """Street."""
    level: int
    """New level: 0..4 houses."""


@_event
class PropertyMortgaged:
    """A property was mortgaged."""
    seat: int
    """Owner."""
    square: int
    """Property."""


@_event
class MortgageLifted:
    """A mortgage was lifted."""
    seat: int
    """Owner."""
    square: int
    """Property."""


@_event
class TradeProposed:
    """An offer was made."""
    proposer: int
    """Seat offering."""
    partner: int
    """Seat offered to."""


@_event
class TradeClosed:
    """An offer ended."""
    proposer: int
    """Seat that offered."""
    partner: int
    """Seat offered to."""
    outcome: str
    """"accepted", "rejected", "withdrawn" or "void" (no longer possible)."""


@_event
class PropertyTransferred:
    """A property changed owner between players (trade or bankruptcy)."""
    frm: int
    """Previous owner."""
    to: int
    """New owner."""
    square: int
    """Property."""


@_event
class WentBankrupt:
    """A player went bankrupt and left the game."""
    seat: int
    """Seat eliminated."""
    creditor: int
    """Seat that received the estate, or BANK."""


@_event
class GameWon:
    """Only one player is left."""
    seat: int
    """Winner."""


@_event
class ActionRefused:
    """An input was illegal when applied; nothing changed."""
    seat: int
    """Seat that sent it."""
    action_code: int
    """Action code (engine.actions)."""
    reason: str
    """IllegalAction.code, a stable machine code."""


@_event
class TimeVoted:
    """Timed game: a seat still in says the agreed time is up (its first TimeUp)."""
    seat: int
    """Seat that voted."""
    votes: int
    """Votes of seats still in, this one included."""
    needed: int
    """Votes needed: a strict majority of the seats still in."""


@_event
class TimeExpired:
    """Timed game: a strict majority of the seats still in said the time is up; the game ends
    at the end of this turn."""
    seat: int
    """Seat whose vote made the majority (-1: a bankruptcy shrank the seats still in)."""


@_event
class ContractDealt:
    """Editrice Giochi: a contract dealt at the start (the price is paid to the bank)."""
    seat: int
    """Seat receiving it."""
    square: int
    """The property."""


@_event
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
