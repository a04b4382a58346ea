"""niente-e-come-sembra, properties and the end of the game: one test per rule, each naming the
rulebook passage (rulebooks/monopoly-niente-e-come-sembra.txt) or the design choice of docs/RULES.md.

Auctions, hotels (one per street, as soon as the set is complete; shortage auctioned), selling to the
bank when in debt, bankruptcy, no mortgages, and the end when every property is owned (final rents,
standings by money). Shared helpers: tests/engine/niente_kit.py.
"""

import pytest

from engine import EDITIONS, apply_action, legal_actions, pending
from engine import actions as A
from engine.rules import banknotes as B
from engine.rules.niente_events import FinalRentPaid
from engine.state import HOTEL, P_BUY, P_RAISE
from engine.testing import roll, step

from niente_kit import ED, scenario_with_bills as _state


def test_auction_opens_at_10_raises_of_10_and_no_sale_without_bids():
    """"La base di partenza è di 10 e tutti i giocatori possono aumentare ... di un minimo di
    10"; "Se nessun giocatore desidera fare un'offerta ... il contratto resta alla Banca"."""
    s = _state()
    s.pos[0] = 1
    s.phase = P_BUY
    s, _ = apply_action(s, 0, A.DeclineProperty())
    assert pending(s).kind == "auction_bid"
    assert legal_actions(s, 0)[0] == A.Bid(10)
    s, _ = step(s, seat0=A.Bid(10), seat1=A.Bid(15))  # 15 is rounded up to 20 (banknotes)
    assert s.auc_high == 20 and s.auc_bidder == 1
    t = _state()
    t.pos[0] = 1
    t.phase = P_BUY
    t, _ = apply_action(t, 0, A.DeclineProperty())
    t, _ = step(t)
    assert t.owner[1] == -1 and pending(t).kind == "roll"


def test_hotel_as_soon_as_set_complete_one_per_street():
    """"Non appena avete completato una serie ... potete iniziare ad acquistare gli alberghi
    (non è necessario aspettare il proprio turno) ... Potete avere solo un albergo per ogni
    strada." No houses exist."""
    s = _state(owners={1: 1, 3: 1})
    s, _ = apply_action(s, 1, A.BuildHouse(1))  # out of turn
    assert s.level[1] == HOTEL and s.hotels == 11 and s.cash[1] == 1250
    with pytest.raises(Exception):
        apply_action(s, 1, A.BuildHouse(1))
    t = _state(owners={1: 1})
    assert A.BuildHouse(1) not in legal_actions(t, 1)


def test_hotel_shortage_is_auctioned():
    """"Se più giocatori desiderano acquistare l'ultimo albergo disponibile, il banchiere deve
    metterlo all'asta. La base di partenza è di 10"."""
    s = _state(3, owners={1: 1, 3: 1, 5: 2, 7: 2, 8: 2})
    s.hotels = 1
    s, ev = step(s, seat1=A.BuildHouse(1), seat2=A.BuildHouse(5))
    assert pending(s).kind == "auction_bid" and s.auc_lot == 2  # LOT_HOTEL
    s, _ = step(s, seat1=A.Bid(30))
    while pending(s).kind != "roll":
        s, _ = step(s)
    assert s.level[1] == HOTEL and s.hotels == 0 and s.cash[1] == 1470


def test_sell_property_to_bank_at_price_hotel_at_half_when_in_debt():
    """"rivendendo le vostre proprietà alla Banca al costo indicato ... Se sulla proprietà si
    trova un albergo, vendetelo alla Banca alla metà del suo prezzo ... arrotondate per
    eccesso"; only to raise money."""
    s = _state(owners={1: 0, 3: 0}, levels={1: HOTEL})
    with pytest.raises(Exception):
        apply_action(s, 0, A.SellProperty(3))
    s = _state(owners={1: 0, 3: 0, 35: 1}, levels={1: HOTEL}, cash={0: 100})
    s.claims.append([1, 0, 35, 500, s.turn])
    s, _ = apply_action(s, 1, A.ClaimRent(35, 0))
    while pending(s).kind == "inspect_window":
        s, _ = step(s)
    assert s.phase == P_RAISE
    s, _ = apply_action(s, 0, A.SellProperty(1))
    assert s.owner[1] == -1 and s.level[1] == 0
    assert s.cash[0] == 100 + 60 + 130  # price + half of the 250 hotel (125 -> 130)


def test_silent_debtor_has_the_bank_buy_back():
    """Design (docs/RULES.md): silence of the debtor in raise_money sells its cheapest
    property outside a complete set, as silence is a pass in an auction."""
    s = _state(owners={5: 0, 35: 1, 34: 0}, cash={0: 50})
    s.claims.append([1, 0, 35, 100, s.turn])
    s, _ = apply_action(s, 1, A.ClaimRent(35, 0))
    while pending(s).kind == "inspect_window":
        s, _ = step(s)
    s, _ = step(s)
    assert s.owner[5] == -1 and s.owner[34] == 0


def test_bankruptcy_hands_cards_to_creditor():
    """"Dovete ancora del denaro a qualche giocatore? Consegnategli eventuali carte Imprevisti
    e Probabilità"."""
    s = _state(owners={35: 1}, cash={0: 20})
    prob = next(c.index for c in EDITIONS[ED].decks[0] if c.kind == "free_hotel")
    s.decks[0].remove(prob)
    s.nx[B.NX_HAND][0] = [prob]
    s.claims.append([1, 0, 35, 100, s.turn])
    s, _ = apply_action(s, 1, A.ClaimRent(35, 0))
    while pending(s).kind == "inspect_window":
        s, _ = step(s)
    s, _ = apply_action(s, 0, A.DeclareBankruptcy())
    assert s.out[0] and prob in s.nx[B.NX_HAND][1]


def test_bankruptcy_to_bank_returns_cards_under_decks():
    """"Dovete del denaro alla Banca? Rimettete eventuali carte ... in fondo ai mazzi"."""
    s = _state(3, cash={0: 20})
    prob = next(c.index for c in EDITIONS[ED].decks[0] if c.kind == "free_hotel")
    s.decks[0].remove(prob)
    s.nx[B.NX_HAND][0] = [prob]
    s.debts.append([0, -1, 100, -1, 1])
    s.phase = P_RAISE
    s.resume.append(1)
    s, _ = apply_action(s, 0, A.DeclareBankruptcy())
    assert s.out[0] and s.decks[0][-1] == prob


def test_game_ends_when_every_property_is_owned_final_rents_most_money_wins():
    """"La partita termina quando tutte le proprietà sono state acquistate ... Per le proprietà
    in una serie, incassate il doppio dell'affitto. Per le proprietà con un albergo, incassate
    l'affitto per un albergo ... Vince il giocatore che avrà più denaro"."""
    props = EDITIONS[ED].tables.properties
    owners = {sq: 1 for sq in props if sq != 35}
    owners[34] = 0
    s = _state(owners=owners, levels={1: HOTEL}, pos={0: 33})
    s, ev = roll(s, 1, 1)  # 35 Parco della Vittoria (400)
    s, ev = apply_action(s, 0, A.BuyProperty())
    while not pending(s).terminal:
        s, ev2 = step(s)
        ev += ev2
    paid = {e.seat: e.amount for e in ev if isinstance(e, FinalRentPaid)}
    assert paid[0] == 80 + 100  # Viale dei Giardini + Parco della Vittoria: complete set, double
    assert paid[1] > 0 and s.winner == 1
    B.check_bills(s)


def test_standings_after_every_property_is_owned_rank_by_money():
    """"Vince il giocatore che avrà più denaro (autentico o falso che sia)!" (FINE DEL GIOCO):
    the players still in rank by their money alone (properties are not counted), ties to the
    lower seat; the bankrupt follow, last out first (issue 12, item 5)."""
    from engine import standings
    props = EDITIONS[ED].tables.properties
    owners = {sq: 2 for sq in props if sq != 35}
    owners[1] = owners[3] = 1
    s = _state(3, owners=owners, pos={0: 33}, cash={0: 1500, 1: 1500, 2: 200})
    s, _ = roll(s, 1, 1)  # 35 Parco della Vittoria (400)
    s, _ = apply_action(s, 0, A.BuyProperty())
    while not pending(s).terminal:
        s, _ = step(s)
    rows = standings(s)
    assert [w for _, w in rows] == sorted((s.cash[i] for i in range(3)), reverse=True)
    assert [seat for seat, _ in rows][0] == s.winner and all(w == s.cash[i] for i, w in rows)


def test_no_mortgages_in_this_edition():
    """The rulebook raises money only by selling to the bank: LiftMortgage is never legal."""
    s = _state(owners={1: 0})
    assert not any(isinstance(a, (A.Mortgage, A.LiftMortgage)) for a in legal_actions(s, 0))
    with pytest.raises(Exception):
        apply_action(s, 0, A.LiftMortgage(1))
