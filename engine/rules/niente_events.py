"""Events of the niente-e-come-sembra rules (past tense, STYLE.md §3); encoded like every other
event by ``engine.events.encode_event`` (``[class name, *fields]``). Seat -1 is the bank."""
from __future__ import annotations

from ..events import event as _event

__all__ = ["BillsMoved", "LensesRestored", "InspectionOpened", "BillInspected",
           "CardInspected", "FaceUpDealt", "FaceUpTaken", "CardKept", "CardPlayed",
           "CardReturned", "PropertySoldToBank", "FinalRentPaid", "BillChoiceOpened",
           "BillsChosen"]


@_event
class BillsMoved:
    """Banknotes changed holder (the p2p layer delivers their secret shares to ``to``)."""
    frm: int
    """Seat that gave them, or -1 (the bank's pile)."""
    to: int
    """Seat that received them, or -1 (bottom of the bank's pile)."""
    bills: tuple[int, ...]
    """Bill ids, in the order handed over."""


@_event
class LensesRestored:
    """A player passed VIA! (or used a card): its red magnifier tokens are green again."""
    seat: int
    """Seat."""


@_event
class InspectionOpened:
    """An inspection window opened: ``actors`` may inspect now."""
    kind: str
    """"bills" (a payment) or "card" (an Imprevisti being used)."""
    actors: tuple[int, ...]
    """Seats that may inspect."""


@_event
class BillInspected:
    """A magnifier token was spent on a bill; the outcome is public."""
    inspector: int
    """Seat that inspected."""
    payer: int
    """Seat that paid with the bill."""
    bill: int
    """Bill id."""
    fake: bool
    """True: counterfeit (the inspector keeps it, the payer pays its value again)."""


@_event
class CardInspected:
    """A magnifier token was spent on an Imprevisti card being used; the outcome is public."""
    inspector: int
    """Seat that inspected."""
    seat: int
    """Seat using the card."""
    card: int
    """Card index in the Imprevisti deck."""
    fake: bool
    """True: discarded to the bottom of the deck, the inspector gets the reward."""


@_event
class FaceUpDealt:
    """An Imprevisti card was laid face up in the centre."""
    slot: int
    """Slot 0..2."""
    card: int
    """Card index in the Imprevisti deck."""


@_event
class FaceUpTaken:
    """A player took a face-up Imprevisti card."""
    seat: int
    """Seat."""
    slot: int
    """Slot it came from."""
    card: int
    """Card index."""


@_event
class CardKept:
    """A drawn Probabilità card is kept for later."""
    seat: int
    """Seat."""
    deck: int
    """Deck index."""
    card: int
    """Card index."""


@_event
class CardPlayed:
    """A player uses a kept card (its effect follows unless an inspection finds it fake)."""
    seat: int
    """Seat."""
    deck: int
    """Deck index."""
    card: int
    """Card index."""
    target: int
    """Square the card acts on, or -1."""


@_event
class CardReturned:
    """A card went back under its deck (used, discarded, swapped or from a bankrupt)."""
    seat: int
    """Seat that held it (-1: none)."""
    deck: int
    """Deck index."""
    card: int
    """Card index."""


@_event
class PropertySoldToBank:
    """A player sold a property back to the bank at its printed price."""
    seat: int
    """Seller."""
    square: int
    """Property (now unowned)."""
    price: int
    """Euro received for the deed (a hotel on it is sold separately at half price)."""


@_event
class FinalRentPaid:
    """End of the game: the bank paid a player the rent of all its properties."""
    seat: int
    """Seat paid."""
    amount: int
    """Euro."""


@_event
class BillChoiceOpened:
    """Players paid in the last step: ``actors`` may now choose the bills of their payment
    (phase "pay_bills", engine.rules.bill_choice)."""
    actors: tuple[int, ...]
    """Seats that paid, sorted."""


@_event
class BillsChosen:
    """A payer paid with bills of its choice instead of the default ones."""
    seat: int
    """Seat that paid."""
    bills: tuple[int, ...]
    """Bill ids it paid with, ascending."""
