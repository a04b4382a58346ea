"""Niente-è-come-sembra: "Monopoly: Niente è come sembra", the decoder edition (Hasbro F2674,
rulebooks/monopoly-niente-e-come-sembra.txt; research notes reference/niente-e-come-sembra-notes.md).

Data (docs/RULES.md, "niente-e-come-sembra", lists every designed value):

* board: data/niente_board.json — the classic board without its two taxes and two utilities
  (36 squares, 22 streets; "Non ci sono né società né tasse da pagare"); stations have no price
  ("invece di acquistare le stazioni, potete salire su un treno");
* cards: data/niente_cards.json — 14 Probabilità (genuine) and 24 Imprevisti in 12 pairs
  (cards 2k and 2k+1 have the same effect; one of each pair is fake);
* money: banknotes of 10/20/50/100/500; each player starts with 2×500, 3×100, 3×50, 1×20,
  3×10 = 1500 ("Il banchiere mescola le banconote e consegna a ciascun giocatore ... Total =
  1500"); VIA! pays 200; jail fine 50; auctions open at 10 with raises of 10 ("La base di
  partenza è di 10 ... un minimo di 10"); 12 hotels, no houses ("12 alberghi").

Rule switches: ``stations_move_to_next_free``, ``hotels_only``, ``end_when_all_owned`` and the
``decoder`` record (:class:`DecoderRules`): banknotes, magnifier tokens, face-up Imprevisti.
Strategies (issue 13): money ``BANKNOTES`` (engine.rules.banknotes), estate ``HOTELS_ONLY``
(engine.rules.estate), cards ``FACE_UP`` (engine.rules.faceup_cards), flow ``NIENTE_FLOW``
(engine.rules.niente_flow).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..rules.banknotes import BANKNOTES
from ..rules.estate import HOTELS_ONLY
# The deck indices and card kinds belong to the face-up card rules (re-exported here).
from ..rules.faceup_cards import (EFFECT_KINDS, FACE_UP, IMMEDIATE_KINDS, IMPREVISTI, KEPT_KINDS,
                                  PROBABILITA)
from ..rules.niente_flow import NIENTE_FLOW
from .base import edition_from_files

__all__ = ["DecoderRules", "EDITION", "KEPT_KINDS", "IMMEDIATE_KINDS", "EFFECT_KINDS",
           "PROBABILITA", "IMPREVISTI"]


@dataclass(frozen=True)
class DecoderRules:
    """The decoder edition's money and hidden-information rules (all euro amounts as int)."""
    start_bills: tuple[int, ...]
    """Denominations of the bills each player gets at the start (sum = start_cash)."""
    bank_bills: tuple[tuple[int, int], ...]
    """(denomination, count) of the bank's pile at the start, besides unused player stacks."""
    stacks: int
    """Player stacks in the pack (the most seats); stacks of empty seats go to the bank."""
    magnifiers: int
    """Magnifier tokens per player ("Ogni giocatore prende due gettoni")."""
    inspect_reward: int
    """Paid by the bank to whoever finds a fake Imprevisti ("una ricompensa di 100")."""
    faceup: int
    """Imprevisti lying face up ("pescatene tre")."""
    imprevisti_limit: int
    """Imprevisti a player may hold ("Potete avere una sola carta Imprevisti alla volta")."""
    standin_fake_bill: tuple[int, int]
    """Default fake rate (num, den) of a bill whose denomination is not in ``fake_rates``."""
    fake_rates: tuple[tuple[int, int, int], ...] = ()
    """Fake rate per denomination: (denomination, num, den): a bill of that denomination is
    fake with probability num/den (the hidden-information protocol's threshold,
    engine.rules.counterfeit.fake_threshold; protocol.md §C12). In each Imprevisti
    pair exactly one card is fake (rate 1/2 per card, fixed by the pairs)."""


EDITION = edition_from_files(
    name="niente-e-come-sembra",
    title="Monopoly: Niente è come sembra",
    board_file="niente_board.json",
    cards_file="niente_cards.json",
    card_kinds=EFFECT_KINDS,
    # Every field not given here has its classic value (``Edition``'s defaults,
    # engine/editions/base.py): €1500, VIA! €200, jail €50 after 3 tries, auctions open at
    # €10, 12 hotels, rent must be claimed, from 2 players (module doc: the rulebook's values).
    jail_third_try_rerolls=True,
    jail_square=9,
    auction_min_raise=10,
    houses=0,
    max_players=6,
    stations_move_to_next_free=True,
    hotels_only=True,
    end_when_all_owned=True,
    money_unit=10,
    money=BANKNOTES,
    estate=HOTELS_ONLY,
    cards=FACE_UP,
    flow=NIENTE_FLOW,
    decoder=DecoderRules(
        start_bills=(500, 500, 100, 100, 100, 50, 50, 50, 20, 10, 10, 10),
        bank_bills=((500, 20), (100, 60), (50, 60), (20, 60), (10, 80)),
        stacks=6,
        magnifiers=2,
        inspect_reward=100,
        faceup=3,
        imprevisti_limit=1,
        standin_fake_bill=(1, 5),
        fake_rates=((500, 1, 10), (100, 1, 5), (50, 1, 5), (20, 1, 5), (10, 1, 5)),
    ),
)
if EDITION.deck_names != ("Probabilità", "Imprevisti"):  # PROBABILITA, IMPREVISTI
    raise ValueError("niente_board.json: Probabilità must come before Imprevisti")
