"""The game state: one mutable object with __slots__ and flat lists of small ints.

The state is mutable for speed (the in-place path, ``engine.game.step_inplace``), but the public
functions ``apply_step``/``apply_chance``/``apply_action`` copy it first and never modify their
argument (ARCHITECTURE.md §1). Every field is an int, a str, or a list of ints / lists of ints,
so ``copy()`` is a handful of list copies and ``engine.hashing.encode_state`` is canonical.

Money conservation: ``bank`` is the bank's balance, starting at 0 and going negative when it
pays out (the bank never goes broke: "la banca non fallisce mai"). ``sum(cash) + bank`` is
constant: ``seats * start_cash``.
"""
from __future__ import annotations

from operator import attrgetter

import msgpack

from .board import HOTEL, LOT_HOTEL, LOT_HOUSE, LOT_PROPERTY

__all__ = ["State", "new_state", "PHASE_NAMES", "P_FIRST", "P_ROLL", "P_DICE", "P_BUY",
           "P_AUCTION", "P_CARD", "P_RAISE", "P_INHERIT", "P_OVER", "P_END_MOVE",
           "P_JAIL_MOVE", "P_AUCTION_NEXT", "P_NEXT_TURN", "AUTO_PHASES", "CHANCE_PHASES",
           "DICE_MOVE", "DICE_JAIL", "DICE_UTILITY", "HOTEL", "LOT_PROPERTY", "LOT_HOUSE",
           "LOT_HOTEL", "P_CHOICE", "O_POT", "O_NO_AUCTIONS", "O_DOUBLE_GO", "O_TIMED",
           "NO_OPTIONS", "P_INSPECT", "P_REVEAL", "P_TAKE", "P_PAY", "P_AUCTION_TIE"]

# Phases. Decision and chance phases are what `pending` reports; AUTO phases are transient
# bookkeeping the engine runs through immediately (never visible between steps).
P_FIRST, P_ROLL, P_DICE, P_BUY, P_AUCTION, P_CARD, P_RAISE, P_INHERIT, P_OVER = range(9)
P_END_MOVE, P_JAIL_MOVE, P_AUCTION_NEXT, P_NEXT_TURN = range(9, 13)
PHASE_NAMES = ("first_player", "roll", "dice", "buy_or_auction", "auction_bid", "card",
               "raise_money", "mortgage_choice", "game_over", "end_move", "jail_move",
               "auction_next", "next_turn")
P_CHOICE = 13
"""Decision: the current player pays a card's fine or draws from another deck (pay_or_draw)."""
PHASE_NAMES += ("card_choice",)
P_INSPECT, P_REVEAL, P_TAKE = 14, 15, 16
"""Niente-è-come-sembra (engine.rules.niente_flow): decision "inspect_window", chance-like
"inspection" (outcomes of inspections), decision "take_card" (face-up Imprevisti)."""
PHASE_NAMES += ("inspect_window", "inspection", "take_card")
P_PAY = 17
"""Niente-è-come-sembra (engine.rules.bill_choice): decision "pay_bills", payers choose bills."""
PHASE_NAMES += ("pay_bills",)
P_AUCTION_TIE = 18
"""Chance: tied auction bids that nobody outbid; the tied seats roll for the lot
(engine.rules.auction.roll_tie)."""
PHASE_NAMES += ("auction_tie",)
AUTO_PHASES = frozenset((P_END_MOVE, P_JAIL_MOVE, P_AUCTION_NEXT, P_NEXT_TURN))
CHANCE_PHASES = frozenset((P_FIRST, P_DICE, P_CARD, P_REVEAL, P_AUCTION_TIE))

# What a pending dice roll is for.
DICE_MOVE, DICE_JAIL, DICE_UTILITY = 0, 1, 2
# LOT_PROPERTY, LOT_HOUSE, LOT_HOTEL (what an auction sells) and HOTEL (the building level of a
# hotel): engine.board, imported above and re-exported here.
O_POT, O_NO_AUCTIONS, O_DOUBLE_GO, O_TIMED = range(4)
"""Indices in ``State.opts`` (lobby options, engine.rules.house_rules)."""
NO_OPTIONS = (0, 0, 0, 0)

_LIST_FIELDS = ("cash", "pos", "jail", "out", "owner", "level", "mort", "undrawn", "resume",
                "auc_in", "auc_queue", "auc_target", "opts")
_NESTED_FIELDS = ("decks", "held", "claims", "debts", "offers", "inherit", "step_bids", "nx")


class State:
    """Everything the game needs; see ``engine.hashing`` for the canonical field order.

    Fields (euro as int, seats 0..n-1, squares 0..39, -1 = nobody / the bank):

    * ``edition`` str, ``n`` seats, ``phase`` (P_*), ``current`` seat whose turn it is,
      ``turn`` turns started so far, ``doubles`` doubles rolled this turn,
      ``d1``/``d2`` last dice (0 before any roll), ``dice_for`` (DICE_*), ``draw_deck`` deck of
      the pending card draw (in phase card_choice: the card waiting, ``deck*256 + card``), ``mult`` rent multiplier of a card move (1 normally),
      ``houses``/``hotels`` bank stock, ``bank`` bank balance, ``winner`` (-1 until over).
    * per seat: ``cash``, ``pos``, ``jail`` (0 free, k = in jail on the k-th try),
      ``out`` (0 = in the game, k >= 1 = bankrupt, the k-th seat to go out), ``held`` (list of held jail cards as ``deck*256 + card``).
    * per square: ``owner``, ``level`` (0..4 houses, 5 hotel), ``mort`` (1 = mortgaged).
    * ``decks[d]``: card indices in deck order, top first; the first ``undrawn[d]`` of them
      have not been drawn in this pass (face down).
    * ``claims``: rent not yet claimed, ``[creditor, debtor, square, amount, turn]``.
    * ``debts``: payments waiting, head first, ``[debtor, creditor, amount, square]``
      (``square`` >= 0: an auction price; paying it gives the square to the debtor).
    * ``resume``: stack of phases to return to after a raise-money / mortgage-choice /
      auction interlude.
    * auction: ``auc_sq`` lot, ``auc_high`` high bid (0: none), ``auc_bidder`` (-1: none),
      ``auc_in`` per seat 1 = still bidding, 2 = still bidding and holds a tied high bid
      (``auc_bidder`` is then -1 and ``auc_high`` the tied amount), ``auc_queue`` lots waiting (bankrupt's estate),
      ``step_bids`` bids of the running step ``[seat, amount]`` (empty between steps),
      ``auc_lot`` what is sold (LOT_PROPERTY, LOT_HOUSE, LOT_HOTEL: building shortage),
      ``auc_target`` per seat the street a building-auction bidder builds on (-1: none).
    * ``offers``: open trade offers, one per proposer, sorted by proposer:
      ``[proposer, partner, give_squares, get_squares, give_cash, get_cash, give_cards,
      get_cards, lift]`` (lists of ints inside).
    * ``inherit``: ``[receiver, square, ...]`` mortgaged properties received from a bankrupt,
      waiting for SettleMortgages (empty list: none).
    * ``opts``: lobby options as ints, indexed by O_* (engine.rules.house_rules): free-parking
      pot on, no auctions, double salary on VIA!, timed game minutes (0: untimed).
    * ``pot`` euro in the free-parking pot (part of ``bank``'s balance, engine.rules.house_rules);
      ``time_up`` 1 once the agreed time has expired (engine.rules.timed).
    """

    __slots__ = (("edition", "ed", "tb", "n", "phase", "current", "turn", "doubles", "d1", "d2",
                 "dice_for", "draw_deck", "mult", "houses", "hotels", "bank", "winner",
                 "auc_sq", "auc_high", "auc_bidder", "auc_lot", "pot", "time_up") + _LIST_FIELDS
                 + _NESTED_FIELDS)

    def copy(self) -> "State":
        """An independent copy (lists copied, nested lists copied one level deeper).

        Written out field by field (every field of ``__slots__``: ``test_copy_covers_every_slot``
        checks it): plain slot loads and stores, which the interpreter specialises, instead of
        a ``getattr``/``setattr`` loop over the names; peers copy the state at every step
        (``apply_step``/``apply_chance``)."""
        c = _new(State)  # State.__new__: also right when State is compiled (state.pxd)
        c.edition = self.edition
        c.ed = self.ed
        c.tb = self.tb
        c.n = self.n
        c.phase = self.phase
        c.current = self.current
        c.turn = self.turn
        c.doubles = self.doubles
        c.d1 = self.d1
        c.d2 = self.d2
        c.dice_for = self.dice_for
        c.draw_deck = self.draw_deck
        c.mult = self.mult
        c.houses = self.houses
        c.hotels = self.hotels
        c.bank = self.bank
        c.winner = self.winner
        c.auc_sq = self.auc_sq
        c.auc_high = self.auc_high
        c.auc_bidder = self.auc_bidder
        c.auc_lot = self.auc_lot
        c.pot = self.pot
        c.time_up = self.time_up
        c.cash = self.cash[:]
        c.pos = self.pos[:]
        c.jail = self.jail[:]
        c.out = self.out[:]
        c.owner = self.owner[:]
        c.level = self.level[:]
        c.mort = self.mort[:]
        c.undrawn = self.undrawn[:]
        c.resume = self.resume[:]
        c.auc_in = self.auc_in[:]
        c.auc_queue = self.auc_queue[:]
        c.auc_target = self.auc_target[:]
        c.opts = self.opts[:]
        c.decks = [d[:] for d in self.decks]
        c.held = [h[:] for h in self.held]
        c.claims = [x[:] for x in self.claims] if self.claims else []
        c.debts = [x[:] for x in self.debts] if self.debts else []
        c.offers = [[x[:] if isinstance(x, list) else x for x in o] for o in self.offers]
        c.inherit = self.inherit[:]
        c.step_bids = [x[:] for x in self.step_bids] if self.step_bids else []
        c.nx = [[y[:] for y in x] if x and type(x[0]) is list else x[:] for x in self.nx]
        return c

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return encode_state(self) == encode_state(other)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return (f"State({self.edition}, phase={PHASE_NAMES[self.phase]}, current={self.current},"
                f" turn={self.turn}, cash={self.cash})")


_new = State.__new__
"""``object.__new__`` for the pure class; the extension type's own constructor when state.pxd
compiles State (``object.__new__`` refuses extension types)."""


def new_state(ed, seats: int, opts: tuple[int, ...] = NO_OPTIONS) -> State:
    """A fresh game of edition ``ed`` (an ``engine.editions.Edition``; engine.game.new_game
    looks names up) waiting for the "first_player" chance step; ``opts`` as ``State.opts``
    (checked by engine.rules.house_rules.parse_options).

    Raises ValueError for a seat count outside the edition's range (an edition whose switches
    are not implemented cannot be built: ``Edition.__post_init__``).
    """
    if type(seats) is not int or not ed.min_players <= seats <= ed.max_players:
        raise ValueError(f"seats must be {ed.min_players}..{ed.max_players}")
    s = State.__new__(State)
    s.edition = ed.name
    s.ed = ed
    s.tb = ed.tables
    s.n = seats
    s.phase = P_FIRST
    s.current = 0
    s.turn = 0
    s.doubles = 0
    s.d1 = s.d2 = 0
    s.dice_for = DICE_MOVE
    s.draw_deck = -1
    s.mult = 1
    s.houses = ed.houses
    s.hotels = ed.hotels
    start = ed.start_for(seats)[0]
    s.bank = -start * seats
    s.winner = -1
    s.auc_sq = -1
    s.auc_high = 0
    s.auc_bidder = -1
    s.auc_lot = LOT_PROPERTY
    s.auc_target = [-1] * seats
    s.cash = [start] * seats
    s.pos = [0] * seats
    s.jail = [0] * seats
    s.out = [0] * seats
    s.held = [[] for _ in range(seats)]
    nsq = len(ed.squares)
    s.owner = [-1] * nsq
    s.level = [0] * nsq
    s.mort = [0] * nsq
    s.decks = [list(range(len(d))) for d in ed.decks]
    s.undrawn = [len(d) for d in ed.decks]
    s.claims = []
    s.debts = []
    s.resume = []
    s.auc_in = [0] * seats
    s.auc_queue = []
    s.step_bids = []
    s.offers = []
    s.inherit = []
    s.opts = list(opts)
    s.pot = 0
    s.time_up = 0
    s.nx = ed.money.new_hidden(ed, seats)  # niente: the bills (engine.rules.banknotes)
    return s


# --- canonical encoding (engine.hashing hashes, decodes and re-exports it) -----------------

STATE_FORMAT = 1
"""Version of the state encoding."""

_SCALARS = ("n", "phase", "current", "turn", "doubles", "d1", "d2", "dice_for", "draw_deck",
            "mult", "houses", "hotels", "bank", "winner", "auc_sq", "auc_high", "auc_bidder",
            "auc_lot", "pot", "time_up")
_LISTS = _LIST_FIELDS  # the slots' own order is the encoding's
_NESTED = _NESTED_FIELDS


_FIELDS = attrgetter(*_SCALARS, *_LISTS, *_NESTED)
"""Every encoded field in order, read in one C call (peers hash the state at every step)."""


def encode_state(s: State) -> bytes:
    """Canonical msgpack bytes of ``s`` (protocol.md part E "State encoding": one array, the
    format version, the edition name, then ``_SCALARS``, ``_LISTS``, ``_NESTED`` in order);
    ``engine.hashing`` hashes and decodes it."""
    return msgpack.packb([STATE_FORMAT, s.edition, *_FIELDS(s)], use_bin_type=True)
