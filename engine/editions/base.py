"""The edition's types and data loading: :class:`Edition` (data, switches and the money,
estate, cards and flow strategies), :class:`Square`, :class:`Card`, :class:`Tables`, the data-file readers.

Apart from the registry (``engine.editions``, which imports every edition module) so that the
edition modules import these from here and not from the package that imports them (issue 13:
no import circle). Everything here is re-exported by ``engine.editions``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Mapping

from ..board import (CARD_KINDS, K_CARD, K_FREE, K_GO, K_GOTOJAIL, K_JAIL, K_STATION, K_STREET,
                     K_TAX, K_UTILITY, SQUARE_KINDS, Tables)
from ..rules.cards import DECK, Deck
from ..rules.estate import HOUSES, Houses
from ..rules.flow import PLAIN_FLOW, PlainFlow
from ..rules.money import EURO, Euro

__all__ = [
    "Edition", "Square", "Card", "Tables", "load_board", "load_decks", "edition_from_files",
    "K_GO", "K_STREET", "K_STATION", "K_UTILITY", "K_TAX", "K_CARD", "K_JAIL", "K_FREE",
    "K_GOTOJAIL", "SQUARE_KINDS", "CARD_KINDS",
]

# Square and card kinds: engine.board (re-exported here, their historical home).


@dataclass(frozen=True)
class Square:
    """One board square."""
    index: int
    """Position 0..39, VIA! is 0."""
    name: str
    """Italian name as printed."""
    kind: int
    """One of the K_* constants."""
    group: int = -1
    """Colour group index for streets, -1 otherwise (stations/utilities use ``kind``)."""
    price: int = 0
    """Purchase price in euro (0: not a property)."""
    rent: tuple[int, ...] = ()
    """Streets: (base, complete set unbuilt, 1, 2, 3, 4 houses, hotel) in euro."""
    house_cost: int = 0
    """Streets: price of one house (a hotel costs the same plus the 4 houses), euro."""
    mortgage: int = 0
    """Mortgage value printed on the back of the deed, euro."""
    amount: int = 0
    """Tax squares: the tax in euro."""
    deck: int = -1
    """Card squares: index of the deck to draw from."""


@dataclass(frozen=True)
class Card:
    """One card; the fields used depend on ``kind`` (a CARD_KINDS name)."""
    deck: int
    """Index of the deck the card belongs to."""
    index: int
    """Position of the card in the edition's deck list (its identity)."""
    text: str
    """Italian text as printed."""
    kind: str
    """Effect kind, one of CARD_KINDS."""
    target: int = -1
    """move_to: square index."""
    target_kind: int = -1
    """move_to_nearest: K_STATION or K_UTILITY."""
    steps: int = 0
    """move_relative: squares to move (negative = backwards, no VIA! salary)."""
    amount: int = 0
    """collect/pay/collect_from_each_player/pay_each_player: euro."""
    per_house: int = 0
    """repairs: euro per house."""
    per_hotel: int = 0
    """repairs: euro per hotel."""
    go_salary: bool = False
    """move_to/move_to_nearest: collect the VIA! salary when passing VIA!."""
    rent_multiplier: int = 1
    """move_to_nearest station: the owner gets this multiple of the normal rent."""
    dice_multiplier: int = 0
    """move_to_nearest utility: roll new dice, pay the owner this multiple (0: normal rent)."""
    alt_deck: int = -1
    """pay_or_draw: the deck the player may draw from instead of paying ``amount``."""


@dataclass(frozen=True)
class Edition:
    """An edition: data plus rule switches. Money in euro."""
    name: str
    """Registry key, e.g. "classico"."""
    title: str
    """Human title (Italian)."""
    squares: tuple[Square, ...]
    """The board, index 0 = VIA!."""
    groups: tuple[tuple[int, ...], ...]
    """Colour groups: squares of each set, in board order."""
    group_names: tuple[str, ...]
    """Italian colour names, parallel to ``groups``."""
    decks: tuple[tuple[Card, ...], ...]
    """Card decks (classico: 0 = Probabilità, 1 = Imprevisti)."""
    deck_names: tuple[str, ...]
    """Italian deck names, parallel to ``decks``."""
    station_rents: tuple[int, ...]
    """Rent by number of stations owned (1..4), euro."""
    utility_multipliers: tuple[int, ...]
    """Dice multiplier by number of utilities owned (1..2)."""
    start_cash: int = 1500
    """Money each player gets at the start, euro."""
    go_salary: int = 200
    """Paid when passing or landing on VIA!, euro."""
    jail_fine: int = 50
    """Fine to leave jail, euro."""
    jail_max_turns: int = 3
    """Turns a player may try for doubles before paying and moving."""
    jail_square: int = 10
    """Square of the jail."""
    auction_open: int = 10
    """Lowest first bid in an auction, euro."""
    auction_min_raise: int = 1
    """Smallest raise over the high bid, euro."""
    houses: int = 32
    """Houses in the bank at the start."""
    hotels: int = 12
    """Hotels in the bank at the start."""
    mortgage_interest_pct: int = 10
    """Interest to lift a mortgage, and the fee to keep one received by trade/bankruptcy (%)."""
    rent_must_be_claimed: bool = True
    """The owner must ask for the rent (ClaimRent) before the next player rolls."""
    min_players: int = 2
    """Fewest seats."""
    max_players: int = 8
    """Most seats (8 tokens in the box)."""
    # Switches of later editions (DESIGN.md §1); classico values only are implemented.
    contracts_dealt: int = 0
    """Contracts dealt to each player at the start (editrice-giochi); 0 = none."""
    stations_move_to_next_free: bool = False
    """Niente-è-come-sembra: landing on a station moves you to the next unowned property."""
    hotels_only: bool = False
    """Niente-è-come-sembra: one hotel per street, no houses."""
    end_when_all_owned: bool = False
    """Niente-è-come-sembra: the game ends when every property is owned."""
    timed_game: bool = False
    """Editrice Giochi / Fabrianopoli option: the game ends on time, won by net worth."""
    bankruptcy_to_bank_only: bool = False
    """Editrice Giochi: a bankrupt's estate always goes to the bank, which pays the creditor."""
    start_by_seats: tuple[tuple[int, int, int], ...] = ()
    """Editrice Giochi: rows (seats, starting euro, contracts dealt) replacing ``start_cash`` and
    ``contracts_dealt`` for that number of players; empty: the same for every count."""
    jail_third_fine: int = -1
    """Fine paid when leaving jail after the last failed try, euro (-1: ``jail_fine``)."""
    jail_third_try_rerolls: bool = False
    """After the last failed try the player pays and rolls again, moving by the new roll
    (niente-e-come-sembra: "pagate 50, tirate di nuovo i dadi e avanzate"); False: moves by the
    failed roll (classico)."""
    worth_building_pct: int = 100
    """Share of the price paid for buildings counted in the net worth (timed game), %."""
    debtor_auction: bool = False
    """Fabrianopoli: a debtor may auction an unbuilt property among the others, opening at its
    price (engine.rules.sale)."""
    money_unit: int = 1
    """Smallest amount that can change hands, euro: bids and trade cash must be multiples of it
    (niente-e-come-sembra: 10, the smallest banknote)."""
    decoder: object = None
    """Niente-è-come-sembra: ``engine.editions.niente.DecoderRules`` (banknotes, magnifier tokens,
    face-up Imprevisti); None: money is plain euro (every other edition)."""
    money: Euro = EURO
    """Money strategy (``engine.rules.money.Euro``: plain euro; niente-e-come-sembra:
    ``engine.rules.banknotes.BANKNOTES``, the bills move too): every payment of the shared
    rules goes through it (``engine.rules.money.transfer``), so the flow never asks which
    edition it runs."""
    estate: Houses = HOUSES
    """Estate strategy (``engine.rules.estate.Houses``: houses, hotels, mortgages;
    niente-e-come-sembra: ``HOTELS_ONLY``): what can be built, sold and mortgaged and for how
    much (engine.rules.building, engine.rules.mortgage call it)."""
    cards: Deck = DECK
    """Card strategy (``engine.rules.cards.Deck``: face-down decks, jail cards named by deck;
    niente-e-come-sembra: ``engine.rules.faceup_cards.FACE_UP``, face-up Imprevisti and kept
    cards): the draw, a card square, UseJailCard, cards in trades and in a bankruptcy."""
    flow: PlainFlow = PLAIN_FLOW
    """Step flow strategy (``engine.rules.flow.PlainFlow``: the shared state machine alone;
    niente-e-come-sembra: ``engine.rules.niente_flow.NIENTE_FLOW``): the phases, actions and
    end-of-step rules an edition adds (engine.game calls it at fixed points)."""
    tables: Tables = field(default=None, compare=False, repr=False)  # type: ignore[assignment]
    """Precomputed lists for the hot path (built in __post_init__)."""

    def __post_init__(self) -> None:
        """Builds ``tables``; raises ValueError for rule switches without their rules (the
        niente-e-come-sembra switches need its ``decoder`` record)."""
        if (self.stations_move_to_next_free or self.hotels_only or self.end_when_all_owned) \
                and self.decoder is None:
            raise ValueError(f"edition {self.name}: rule switches not implemented yet")
        object.__setattr__(self, "tables", Tables(self.squares, self.groups,
                                                      self.mortgage_interest_pct,
                                                      self.flow if self.flow.step_rules
                                                      or self.flow.extends_legal else None))
        if self.jail_third_fine < 0:
            object.__setattr__(self, "jail_third_fine", self.jail_fine)

    def start_for(self, seats: int) -> tuple[int, int]:
        """(starting euro, contracts dealt) for ``seats`` players."""
        for n, cash, contracts in self.start_by_seats:
            if n == seats:
                return cash, contracts
        return self.start_cash, self.contracts_dealt


def load_board(filename: str) -> tuple[tuple[Square, ...], tuple[tuple[int, ...], ...],
                                        tuple[str, ...], tuple[int, ...], tuple[int, ...],
                                        dict[str, int]]:
    """Read ``engine/editions/data/<filename>``: squares, groups, group names, station rents,
    utility multipliers and the deck-id → index map. Raises ValueError on an inconsistent file."""
    raw = json.loads(resources.files(__package__).joinpath("data", filename).read_text("utf-8"))
    gids = [g["id"] for g in raw["groups"]]
    decks: dict[str, int] = {}
    squares = []
    for i, s in enumerate(raw["squares"]):
        if s["index"] != i:
            raise ValueError(f"{filename}: square {i} out of order")
        kind = SQUARE_KINDS.index(s["kind"])
        deck = -1
        if kind == K_CARD:
            deck = decks.setdefault(s["deck"], len(decks))
        squares.append(Square(
            index=i, name=s["name"], kind=kind,
            group=gids.index(s["group"]) if kind == K_STREET else -1,
            price=s.get("price", 0), rent=tuple(s.get("rent", ())),
            house_cost=s.get("house_cost", 0), mortgage=s.get("mortgage", 0),
            amount=s.get("amount", 0), deck=deck))
    groups = tuple(tuple(g["members"]) for g in raw["groups"])
    for gi, g in enumerate(groups):
        for m in g:
            if squares[m].group != gi:
                raise ValueError(f"{filename}: square {m} not in group {gids[gi]}")
    return (tuple(squares), groups, tuple(g["name"] for g in raw["groups"]),
            tuple(raw["station_rents"]), tuple(raw["utility_multipliers"]), decks)


def load_decks(filename: str, deck_ids: Mapping[str, int],
               kinds: tuple[str, ...] = CARD_KINDS) -> tuple[
        tuple[tuple[Card, ...], ...], tuple[str, ...]]:
    """Read ``engine/editions/data/<filename>``; decks are ordered by ``deck_ids`` (the order
    in which the board names them). ``kinds``: the effect kinds the edition's rules know
    (``CARD_KINDS``; niente-e-come-sembra: its own). Raises ValueError on an unknown kind."""
    raw = json.loads(resources.files(__package__).joinpath("data", filename).read_text("utf-8"))
    by_id = {d["id"]: d for d in raw["decks"]}
    decks = []
    names = []
    for did, di in sorted(deck_ids.items(), key=lambda kv: kv[1]):
        d = by_id[did]
        names.append(d["name"])
        cards = []
        for ci, c in enumerate(d["cards"]):
            if c["kind"] not in kinds:
                raise ValueError(f"{filename}: unknown card kind {c['kind']}")
            tk = -1
            if c["kind"] == "move_to_nearest":
                tk = SQUARE_KINDS.index(c["target_type"])
            cards.append(Card(
                deck=di, index=ci, text=c["text"], kind=c["kind"],
                target=c.get("target", -1), target_kind=tk, steps=c.get("steps", 0),
                amount=c.get("amount", 0), per_house=c.get("per_house", 0),
                per_hotel=c.get("per_hotel", 0), go_salary=c.get("collect_go_if_passed", False),
                rent_multiplier=c.get("rent_multiplier", 1),
                dice_multiplier=c.get("dice_multiplier", 0),
                alt_deck=deck_ids.get(c.get("alternative_deck", ""), -1)))
        decks.append(tuple(cards))
    return tuple(decks), tuple(names)


def edition_from_files(name: str, title: str, board_file: str, cards_file: str,
                       card_kinds: tuple[str, ...] = CARD_KINDS, **switches: object) -> Edition:
    """Build an :class:`Edition` from ``data/<board_file>`` (:func:`load_board`) and
    ``data/<cards_file>`` (:func:`load_decks` with ``card_kinds``); ``switches`` are the
    remaining :class:`Edition` fields (money in euro, rule switches, strategies), each citing
    its rulebook in the edition's module. Raises ValueError on an inconsistent data file,
    TypeError on an unknown switch."""
    squares, groups, gnames, srents, umult, deck_ids = load_board(board_file)
    decks, dnames = load_decks(cards_file, deck_ids, card_kinds)
    return Edition(name=name, title=title, squares=squares, groups=groups, group_names=gnames,
                   decks=decks, deck_names=dnames, station_rents=srents,
                   utility_multipliers=umult, **switches)  # type: ignore[arg-type]
