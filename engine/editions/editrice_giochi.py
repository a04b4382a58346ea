"""Editrice Giochi: the older Italian euro edition (rulebooks/monopoli-editrice-giochi.txt).

Money by number of players, contracts dealt at random and paid to the bank ("Numero giocatori /
Denaro Iniziale / Numero contratti: 2 € 8.750 7 ... 6 € 3.750 3"; "I contratti devono essere
distribuiti casualmente, dopo averli accuratamente mischiati"; "Prima di iniziare la partita, i
giocatori devono pagare alla Banca il valore di acquisto dei contratti che hanno ricevuto"),
2-6 players ("Da due a sei giocatori"), VIA! €500 ("riceve dalla Banca € 500"), jail €125
("mediante il pagamento di € 125"; "è costretto a pagare € 125 di multa"), auctions and house
shortage auctions open at €5 ("Il prezzo di partenza per l'asta è di € 5"; "partendo da un
valore minimo di € 5"), rent is simply paid ("deve pagare al proprietario l'affitto indicato sul
contratto": no claim), bankruptcy always to the bank ("tutto ciò che egli possiede passa alla
Banca che paga integralmente il creditore"), optional timed game with buildings at half
("Anche le case e gli alberghi devono essere calcolati alla metà del loro valore di acquisto").
Board (classic × 2.5) and the old Editrice Giochi decks: data/editrice_giochi_*.json, whose
"source" fields say where each value comes from; choices are listed in docs/RULES.md.
"""
from __future__ import annotations

from .base import edition_from_files

EDITION = edition_from_files(
    name="editrice-giochi",
    title="Monopoli (Editrice Giochi, edizione in euro)",
    board_file="editrice_giochi_board.json",
    cards_file="editrice_giochi_cards.json",
    # Every field not given here has its classic value (``Edition``'s defaults, engine/editions/base.py):
    # jail after 3 tries on square 10, raises of €1, 32 houses, 12 hotels, 10 % mortgage interest, from 2 players.
    start_cash=6250,
    go_salary=500,
    jail_fine=125,
    auction_open=5,
    rent_must_be_claimed=False,
    max_players=6,
    contracts_dealt=5,
    start_by_seats=((2, 8750, 7), (3, 7500, 6), (4, 6250, 5), (5, 5000, 4), (6, 3750, 3)),
    timed_game=True,
    bankruptcy_to_bank_only=True,
    worth_building_pct=50,
)
