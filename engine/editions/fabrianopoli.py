"""Fabrianopoli: a local edition for Fabriano (rulebooks/fabrianopoli.txt).

Its own board ("Riva" is VIA!, "Commissariato" the jail, "La Vigliessa" sends you there,
"Porcheggio dei Monticelli" the free parking) with the classic rents by position, €1.500 each
("riceve un capitale di 1.500 FabrianopolEuri"), no contracts dealt ("I Contratti non vengono
distribuiti"), VIA! €200, jail: €500 before rolling ("mediante il pagamento di € 500 al suo
turno di gioco, pagamento che dovrà avvenire prima di gettare i dadi") but €200 on the third
turn ("Al terzo giro, il giocatore è obbligato ad uscire, pagando una tassa di uscita di € 200,
a meno che non abbia tirato i dadi doppi"), auctions open at €5 ("questa parte da € 5"), a
debtor may auction a property opening at its value ("questa parte dal valore del terreno",
engine.rules.sale), rent must be claimed ("non è permesso reclamare crediti da un giocatore
quando il giocatore successivo ha già gettato i dadi"), bankruptcy always to the bank ("passa
alla Banca che paga integralmente i creditori"), optional timed game with buildings at full
value ("aggiungendo i valori dei terreni, stazioni, imprese, delle case e degli alberghi
(naturalmente i terreni ipotecati valgono la metà)"). Choices: docs/RULES.md.
"""
from __future__ import annotations

from .base import edition_from_files

EDITION = edition_from_files(
    name="fabrianopoli",
    title="Fabrianopoli",
    board_file="fabrianopoli_board.json",
    cards_file="fabrianopoli_cards.json",
    # Every field not given here has its classic value (``Edition``'s defaults, engine/editions/base.py):
    # €1.500 each, VIA! €200, jail after 3 tries on square 10, raises of €1, 32 houses, 12 hotels,
    # 10 % mortgage interest, rent must be claimed, from 2 players, buildings at full value.
    jail_fine=500,
    jail_third_fine=200,
    auction_open=5,
    max_players=6,
    timed_game=True,
    bankruptcy_to_bank_only=True,
    debtor_auction=True,
)
