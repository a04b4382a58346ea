"""Contracts dealt at the start (monopoli-editrice-giochi.txt "PREPARAZIONE": "In base al numero
dei partecipanti, il Banchiere distribuisce ad ogni giocatore un capitale iniziale e una serie di
contratti. I contratti devono essere distribuiti casualmente, dopo averli accuratamente
mischiati." ... "Prima di iniziare la partita, i giocatori devono pagare alla Banca il valore di
acquisto dei contratti che hanno ricevuto.").

Runs inside the "first_player" chance step, before the rolls for who starts, from the same
beacon stream (protocol.md §E3): for each round r = 1..k (k contracts per player,
``Edition.start_for``), for each seat in seat order, the seat receives
``pool.pop(below(len(pool)))`` where ``pool`` starts as every property in board order — a
uniform deal from a shuffled deck. Each contract's printed price is paid to the bank at once
(the starting money always covers it: at most €5.550 of €8.750 for two players).
"""
from __future__ import annotations

from ..events import ContractDealt
from .money import R_PURCHASE, transfer

__all__ = ["deal_contracts"]


def deal_contracts(s, ev, rng) -> None:
    """Deal and charge the edition's contracts for ``s.n`` seats (nothing if it deals none)."""
    k = s.ed.start_for(s.n)[1]
    if not k:
        return
    tb = s.tb
    pool = list(tb.properties)
    for _ in range(k):
        for seat in range(s.n):
            sq = pool.pop(rng.below(len(pool)))
            s.owner[sq] = seat
            ev.append(ContractDealt(seat, sq))
            transfer(s, ev, seat, -1, tb.price[sq], R_PURCHASE)
