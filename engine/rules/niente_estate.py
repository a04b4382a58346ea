"""Property, hotels, trains, raising money, bankruptcy and the end (niente-e-come-sembra).

Rulebook passages:

* Hotels: "Non appena avete completato una serie dello stesso colore, potete iniziare ad
  acquistare gli alberghi (non è necessario aspettare il proprio turno). Pagate il costo
  dell'albergo indicato sul relativo Contratto. Potete avere solo un albergo per ogni strada."
  No houses exist; the shortage auction ("Se più giocatori desiderano acquistare l'ultimo albergo
  disponibile, il banchiere deve metterlo all'asta. La base di partenza è di 10 ... minimo di
  10") is engine.rules.building.shortage with every request counted as a hotel.
* Trains: "Quando vi fermate su una Stazione, avanzate fino alla proprietà libera successiva.
  Dovete acquistarla o metterla all'asta." (passing VIA! pays as usual; none left: nothing):
  ``board_train``, which lives with the moves (engine.rules.movement) and is re-exported here.
* Raising money: "rivendendo le vostre proprietà alla Banca al costo indicato sulla relativa
  casella. Se sulla proprietà si trova un albergo, vendetelo alla Banca alla metà del suo prezzo
  di acquisto. Se necessario, arrotondate per eccesso." No mortgages exist in this edition.
* Bankruptcy: "Dovete ancora del denaro a qualche giocatore? Consegnategli eventuali carte
  Imprevisti e Probabilità in vostro possesso. Dovete del denaro alla Banca? Rimettete eventuali
  carte ... in fondo ai mazzi corrispondenti." The bank first buys back every deed
  (``HotelsOnly.before_bankruptcy``, engine.rules.estate); the kept cards are the card
  strategy's (``FaceUp.give_up``, engine.rules.faceup_cards).
* End: "La partita termina quando tutte le proprietà sono state acquistate. A questo punto, tutti
  i giocatori incassano dalla Banca l'affitto che spetta loro per ogni proprietà. Per le proprietà
  in una serie, incassate il doppio dell'affitto. Per le proprietà con un albergo, incassate
  l'affitto per un albergo. ... Vince il giocatore che avrà più denaro (autentico o falso che
  sia)!"
"""
from __future__ import annotations

from ..state import P_ROLL
# Hotels, selling back and their prices are the edition's estate strategy (engine.rules.estate).
from .estate import hotel_half, sell_deed, sell_property, sell_property_error
from .money import R_RENT, transfer
# board_train: the trains' rule lives with the moves now (engine.rules.movement); re-exported.
from .movement import board_train
from .niente_events import FinalRentPaid

__all__ = ["sell_property", "sell_property_error", "default_raise", "board_train",
           "final_rent", "maybe_end", "hotel_half"]


def default_raise(s, ev, seat: int) -> bool:
    """The head debtor sent nothing usable in a "raise_money" step: the bank buys back its
    cheapest property outside a complete set (else its cheapest; ties: board order); with
    nothing left to sell it goes bankrupt: returns True then, and the caller
    (engine.rules.niente_flow) declares it (``bankruptcy.declare``). As with silence in an
    auction, a vanished peer (or a bot that does not know this edition) cannot block the game."""
    tb = s.tb
    best = None
    for sq in tb.properties:
        if s.owner[sq] == seat:
            full = all(s.owner[m] == seat for m in tb.group_of[sq])
            key = (full, tb.price[sq], sq)
            if best is None or key < best:
                best = key
    if best is not None:
        sell_deed(s, ev, seat, best[2])
        return False
    return True


def final_rent(s, seat: int) -> int:
    """Euro the bank pays ``seat`` at the end: for each property the rent, doubled in a
    complete set, the hotel rent with a hotel."""
    tb = s.tb
    total = 0
    for sq in tb.properties:
        if s.owner[sq] == seat:
            if s.level[sq]:
                total += tb.rent[sq][6]
            elif all(s.owner[m] == seat for m in tb.group_of[sq]):
                total += tb.rent[sq][1]
            else:
                total += tb.rent[sq][0]
    return total


def maybe_end(s, ev) -> int:
    """The game ends if every property is owned and the play is at a turn's roll with no debt
    open: pay the final rents and return the winner, the most money (ties: lowest seat), whom
    the caller (engine.rules.niente_flow) declares (``bankruptcy._game_over``, the same ending as
    the last bankruptcy); -1 if the game goes on."""
    if s.phase != P_ROLL or s.debts:
        return -1
    owner = s.owner
    for sq in s.tb.properties:
        if owner[sq] < 0:
            return -1
    for seat in range(s.n):
        if not s.out[seat]:
            amount = final_rent(s, seat)
            if amount:
                transfer(s, ev, -1, seat, amount, R_RENT)
                ev.append(FinalRentPaid(seat, amount))
    return max((i for i in range(s.n) if not s.out[i]), key=lambda i: (s.cash[i], -i))

