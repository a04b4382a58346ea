"""Classico: the current Hasbro Italian edition (rulebooks/monopoly-classico-hasbro.txt).

Money: €1.500 each ("Totale = a1500"), VIA! €200 ("ritirate a200 dalla Banca"), jail fine €50
("Pagate b50"), auctions open at €10 with raises of at least €1 ("Le offerte partono da a10 ...
minimo di a1"), 32 houses and 12 hotels ("32 case / 12 alberghi"), rent must be claimed
("Se invece non lo fa prima che il giocatore successivo abbia lanciato i dadi").
Board and cards: data/classico_board.json and data/classico_cards.json (their "source" field
says where every value comes from).
"""
from __future__ import annotations

from .base import edition_from_files

EDITION = edition_from_files(
    name="classico",
    title="Monopoly classico (Hasbro)",
    board_file="classico_board.json",
    cards_file="classico_cards.json",
    start_cash=1500,
    go_salary=200,
    jail_fine=50,
    jail_max_turns=3,
    jail_square=10,
    auction_open=10,
    auction_min_raise=1,
    houses=32,
    hotels=12,
    mortgage_interest_pct=10,
    rent_must_be_claimed=True,
)
