"""niente-e-come-sembra: one test per rule, each naming the rulebook passage
(rulebooks/monopoly-niente-e-come-sembra.txt) or the design choice of docs/RULES.md."""
import pytest
from hypothesis import given, settings, strategies as st

from engine import EDITIONS, apply_action, apply_chance, legal_actions, new_game, pending
from engine import actions as A
from engine.rules import banknotes as B
from engine.rules.niente_events import (BillInspected, BillsMoved, CardInspected,
                                        FinalRentPaid)
from engine import apply_reveal
from engine.state import HOTEL, P_BUY, P_END_MOVE, P_RAISE
from engine.testing import forced_chance, roll, scenario, step

ED = "niente-e-come-sembra"
IMP = 1


def _state(seats=2, **kw):
    """A scenario whose wallets match the cash it sets (scenario moves euro, not bills)."""
    s = scenario(seats, edition=ED, **kw)
    nx = s.nx
    den = nx[B.NX_DEN]
    redeal = [i for i in range(seats) if sum(den[b] for b in nx[B.NX_WALLET][i]) != s.cash[i]]
    for seat in redeal:
        nx[B.NX_PILE].extend(nx[B.NX_WALLET][seat])
        nx[B.NX_WALLET][seat] = []
    for seat in redeal:
        nx[B.NX_WALLET][seat] = sorted(B.bank_take(s, s.cash[seat]))
    B.check_bills(s)
    return s


def _imp_card(kind):
    return next(c.index for c in EDITIONS[ED].decks[IMP] if c.kind == kind)


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_new_game_deals_the_1500_split(seats):
    """"Il banchiere mescola le banconote e consegna a ciascun giocatore (Total = 1500)":
    2×500, 3×100, 3×50, 1×20, 3×10 each; two green magnifier tokens each ("Ogni giocatore
    prende due gettoni")."""
    s = new_game(ED, seats)
    den = s.nx[B.NX_DEN]
    for w in s.nx[B.NX_WALLET]:
        assert sorted(den[b] for b in w) == [10, 10, 10, 20, 50, 50, 50, 100, 100, 100, 500, 500]
    assert s.cash == [1500] * seats and s.nx[B.NX_LENS] == [2] * seats
    B.check_bills(s)


def test_board_has_no_taxes_no_utilities():
    """"Non ci sono né società né tasse da pagare": 36 squares, 22 streets, 4 trains."""
    ed = EDITIONS[ED]
    kinds = [sq.kind for sq in ed.squares]
    assert len(ed.squares) == 36 and len(ed.tables.properties) == 22
    assert 3 not in kinds and 4 not in kinds  # K_UTILITY, K_TAX
    assert len(ed.decks[0]) == 14 and len(ed.decks[1]) == 24


def test_first_player_step_lays_three_imprevisti_face_up():
    """"pescatene tre e mettetele ... una su ogni casella" (face up)."""
    s = new_game(ED, 3)
    s, _ = apply_chance(s, b"x" * 32)
    row = s.nx[B.NX_FACEUP]
    assert len(row) == 3 and all(c >= 0 for c in row) and len(s.decks[IMP]) == 21


def test_paying_the_bank_moves_bills_to_the_bottom_of_the_pile():
    """"ogni volta che pagate la Banca, posizionate il denaro in fondo al mazzo"; the 60 is paid
    with exact bills (50+10)."""
    s = _state()
    s.pos[0] = 1
    s.phase = P_BUY  # buy_or_auction on Vicolo Corto (60)
    s2, ev = apply_action(s, 0, A.BuyProperty())
    moved = [e for e in ev if isinstance(e, BillsMoved)]
    assert moved[0].frm == 0 and moved[0].to == -1
    assert sorted(s.nx[B.NX_DEN][b] for b in moved[0].bills) == [10, 50]
    assert s2.nx[B.NX_PILE][-2:] == list(moved[0].bills)
    B.check_bills(s2)


def test_change_comes_from_the_bank():
    """Design (docs/RULES.md): a payment that needs change goes through the bank, which pays the
    payee and gives the payer the change from the top of its pile."""
    s = _state()
    w = s.nx[B.NX_WALLET][0]
    five = [b for b in w if s.nx[B.NX_DEN][b] == 500]
    rest = [b for b in w if b not in five]
    s.nx[B.NX_WALLET][0] = sorted(five)  # only 2×500 left: 1000 euro
    s.nx[B.NX_PILE].extend(rest)
    s.bank += 500
    s.cash[0] = 1000
    s.pos[0] = 1
    s.phase = P_BUY
    s2, ev = apply_action(s, 0, A.BuyProperty())
    assert s2.cash[0] == 940
    assert [e.frm for e in ev if isinstance(e, BillsMoved)] == [0, -1]
    B.check_bills(s2)


def test_station_moves_to_next_free_property_buy_or_auction():
    """"Quando vi fermate su una Stazione, avanzate fino alla proprietà libera successiva.
    Dovete acquistarla o metterla all'asta"; passing VIA! pays 200."""
    s = _state(owners={34: 1, 35: 1, 1: 1})
    s.pos[0] = 30
    s, ev = roll(s, 1, 1)  # 32: Stazione Est -> next free is 3 (Vicolo Stretto), via VIA!
    assert s.pos[0] == 3 and pending(s).kind == "buy_or_auction"
    assert s.cash[0] == 1700


def test_station_with_nothing_free_does_nothing():
    """Design: with no unowned property left the train goes nowhere (the game has ended
    anyway unless a property was sold back)."""
    from engine.rules.niente_estate import board_train
    s = _state(owners={sq: 1 for sq in EDITIONS[ED].tables.properties})
    s.pos[0] = 4
    board_train(s, [], 0)
    assert s.pos[0] == 4 and s.phase == P_END_MOVE


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


def _land_on_imprevisti(s):
    s.pos[0] = 3
    return roll(s, 1, 2)  # 6: Imprevisti


def test_take_a_face_up_imprevisti_and_refill():
    """"prendete una qualsiasi delle carte Imprevisti al centro del tabellone. Poi pescatene
    un'altra dal mazzo ... al posto di quella che avete preso"."""
    s = _state()
    s.nx[B.NX_FACEUP] = [s.decks[IMP].pop(0), s.decks[IMP].pop(0), s.decks[IMP].pop(0)]
    s.undrawn[IMP] = 21
    s, _ = _land_on_imprevisti(s)
    assert pending(s).kind == "take_card"
    card = s.nx[B.NX_FACEUP][1]
    s, _ = apply_action(s, 0, A.TakeCard(1))
    assert pending(s).kind == "card"
    s, _ = forced_chance(s, picks=[0])
    assert s.nx[B.NX_FACEUP][1] >= 0 and s.nx[B.NX_FACEUP][1] != card
    assert IMP * 256 + card in s.nx[B.NX_HAND][0] + s.held[0]


def test_at_most_one_imprevisti_swap_allowed_and_silence_declines():
    """"Potete avere una sola carta Imprevisti alla volta. Se ... avete già una carta Imprevisti,
    potete scartarla e sostituirla"; silence in "take_card" declines (design)."""
    s = _state()
    s.nx[B.NX_FACEUP] = [s.decks[IMP].pop(0), s.decks[IMP].pop(0), s.decks[IMP].pop(0)]
    old = s.decks[IMP].pop(0)
    s.undrawn[IMP] = 20
    s.nx[B.NX_HAND][0] = [IMP * 256 + old] if EDITIONS[ED].decks[IMP][old].kind != \
        "get_out_of_jail_free" else []
    s.nx[B.NX_HAND][0] or s.held[0].append(IMP * 256 + old)
    s, _ = _land_on_imprevisti(s)
    t, _ = step(s)  # silence
    assert pending(t).kind == "roll" and t.current == 1
    s, _ = apply_action(s, 0, A.TakeCard(0))
    mine = [k for k in s.nx[B.NX_HAND][0] + s.held[0] if k >> 8 == IMP]
    assert len(mine) == 1 and s.decks[IMP][-1] == old


def test_probabilita_kept_unless_immediate():
    """"Se la carta vi impone di fare qualcosa immediatamente ... seguitele. Altrimenti, potete
    tenere la carta"."""
    prob = EDITIONS[ED].decks[0]
    keep = next(c.index for c in prob if c.kind == "free_hotel")
    now = next(c.index for c in prob if c.kind == "collect" and c.amount == 200)
    s = _state()
    s, _ = roll(s, 1, 1)  # 2: Probabilità
    k, _ = forced_chance(s, picks=[s.decks[0].index(keep)])
    assert k.nx[B.NX_HAND][0] == [keep] and keep not in k.decks[0]
    c, _ = forced_chance(s, picks=[s.decks[0].index(now)])
    assert c.cash[0] == 1700 and c.decks[0][-1] == now


def test_via_pays_200_and_turns_tokens_green():
    """"Se con la vostra pedina superate la casella VIA! ... incassate 200 ... Se avete gettoni
    ... rossi, girateli in modo tale che la faccia verde sia rivolta verso l'alto"."""
    s = _state()
    s.nx[B.NX_LENS][0] = 0
    s.pos[0] = 34
    s, _ = roll(s, 1, 2)
    assert s.cash[0] == 1700 and s.nx[B.NX_LENS][0] == 2


def _paid_rent_window():
    s = _state(3, owners={1: 0}, current=1)
    s.claims.append([0, 1, 1, 10, s.turn])
    s, ev = apply_action(s, 0, A.ClaimRent(1, 1))
    assert pending(s).kind == "pay_bills" and pending(s).actors == (1,)
    s, ev2 = step(s)  # the payer keeps the default bills (silence)
    return s, ev + ev2


def test_payment_opens_inspection_window_for_others_not_payer():
    """"un giocatore qualsiasi può utilizzare un gettone ... Non potete controllare il vostro
    denaro": the payer may not inspect its own payment; the others may."""
    s, ev = _paid_rent_window()
    p = pending(s)
    assert p.kind == "inspect_window" and 1 not in p.actors and set(p.actors) == {0, 2}
    assert not any(isinstance(a, A.InspectBill) for a in legal_actions(s, 1))


def test_no_window_when_nobody_can_inspect():
    """"Non potete utilizzare la lente di ingrandimento" in jail; red tokens cannot be used:
    then no window opens (keeps games fast)."""
    s = _state(3, owners={1: 0}, current=1, jail={2: 1})
    s.nx[B.NX_LENS][0] = 0
    s.claims.append([0, 1, 1, 10, s.turn])
    s, _ = apply_action(s, 0, A.ClaimRent(1, 1))
    s, _ = step(s)  # pay_bills: the default bills
    assert pending(s).kind == "roll"


def test_fake_bill_kept_by_inspector_payer_pays_again():
    """"Se trovate un falso, ditelo a tutti e tenetelo voi! Il giocatore ... dovrà utilizzarne
    altre per portare a termine il pagamento" (outcome pinned: fake)."""
    s, ev = _paid_rent_window()
    bill = next(e for e in ev if isinstance(e, BillsMoved) and e.frm == 1).bills[0]
    s, _ = apply_action(s, 2, A.InspectBill(bill))
    assert pending(s).kind == "inspection" and s.nx[B.NX_LENS][2] == 1
    s, ev = apply_reveal(s, [True])
    assert any(isinstance(e, BillInspected) and e.fake for e in ev)
    assert bill in s.nx[B.NX_WALLET][2]
    assert s.cash == [1510, 1480, 1510]  # payee still got 10, payer paid 20, inspector +10
    B.check_bills(s)


def test_genuine_bill_changes_nothing():
    """"Se le banconote sono autentiche ... non succederà nulla" (outcome pinned: genuine)."""
    s, ev = _paid_rent_window()
    bill = next(e for e in ev if isinstance(e, BillsMoved) and e.frm == 1).bills[0]
    s, _ = apply_action(s, 2, A.InspectBill(bill))
    s, _ = apply_reveal(s, [False])
    assert s.cash == [1510, 1490, 1500] and s.nx[B.NX_PUB][bill] == B.GENUINE
    assert s.nx[B.NX_LENS][2] == 1


def test_inspection_outcomes_count_is_checked():
    """protocol.md §E8: apply_reveal takes one outcome per inspected item; a wrong count raises."""
    s, ev = _paid_rent_window()
    bill = next(e for e in ev if isinstance(e, BillsMoved) and e.frm == 1).bills[0]
    s, _ = apply_action(s, 2, A.InspectBill(bill))
    with pytest.raises(ValueError):
        apply_reveal(s, [])


def _use_imprevisti(kind, seats=3, **kw):
    s = _state(seats, **kw)
    card = _imp_card(kind)
    s.decks[IMP].remove(card)
    s.undrawn[IMP] -= 1
    s.nx[B.NX_HAND][0] = [IMP * 256 + card]
    return s, card


def test_fake_imprevisti_discarded_and_inspector_rewarded():
    """"Se il Mr. Monopoly sulla carta indossa una maschera ... Il giocatore è costretto a
    scartarla e voi potete incassare una ricompensa di 100 dalla Banca"."""
    s, card = _use_imprevisti("collect")
    s, _ = apply_action(s, 0, A.UseCard(IMP, card, -1))
    assert pending(s).kind == "inspect_window" and pending(s).actors == (1, 2)
    s, _ = apply_action(s, 1, A.InspectCard())
    s, ev = apply_reveal(s, [True])
    assert any(isinstance(e, CardInspected) and e.fake for e in ev)
    assert s.cash == [1500, 1600, 1500] and s.decks[IMP][-1] == card


def test_genuine_imprevisti_takes_effect():
    """"Se trovate una carta autentica, il giocatore che l'ha pescata potrà utilizzarla"."""
    s, card = _use_imprevisti("collect")
    amount = EDITIONS[ED].decks[IMP][card].amount
    s, _ = apply_action(s, 0, A.UseCard(IMP, card, -1))
    s, _ = apply_action(s, 2, A.InspectCard())
    s, _ = apply_reveal(s, [False])
    assert s.cash == [1500 + amount, 1500, 1500]


def test_uninspected_imprevisti_takes_effect_after_silent_window():
    """Rulebook "Quando un giocatore sta per utilizzare una carta Imprevisti, gli altri
    giocatori possono ...": if nobody inspects, the card works."""
    s, card = _use_imprevisti("collect")
    s, _ = apply_action(s, 0, A.UseCard(IMP, card, -1))
    s, _ = step(s)
    assert s.cash[0] > 1500 and pending(s).kind == "roll"


def test_free_hotel_card_even_without_complete_set():
    """"alcune carte ... vi permettono di edificare alberghi anche su proprietà che non fanno
    parte di una serie colorata completa"."""
    s, card = _use_imprevisti("free_hotel", owners={1: 0})
    s, _ = apply_action(s, 0, A.UseCard(IMP, card, 1))
    s, _ = step(s)
    assert s.level[1] == HOTEL and s.cash[0] == 1500


def test_skip_rent_card_cancels_a_claim():
    """Card "Niente affitto!" (designed, docs/RULES.md; rulebook "vi permettono, ad esempio, di
    non pagare l'affitto")."""
    s, card = _use_imprevisti("skip_rent", owners={1: 1})
    s.claims.append([1, 0, 1, 10, s.turn])
    s, _ = apply_action(s, 0, A.UseCard(IMP, card, 1))
    s, _ = step(s)
    assert s.claims == []


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


def test_niente_actions_refused_in_classico():
    """Actions 40-45 belong to this edition only."""
    s = scenario(2)
    with pytest.raises(Exception) as e:
        apply_action(s, 0, A.TakeCard(0))
    assert e.value.code == "not_in_edition"


def test_third_failed_jail_try_pays_50_and_rolls_again():
    """"Se entro il terzo turno in prigione non riuscite a ottenere due numeri uguali, pagate
    50, tirate di nuovo i dadi e avanzate." (Come si esce di prigione?, 3): the move is by a
    new roll, not by the failed one (classico moves by the failed roll)."""
    from engine.events import LeftJail, Moved
    jail = EDITIONS[ED].jail_square
    s = _state(2, jail={0: 3}, pos={0: jail})
    s, ev = roll(s, 2, 3)  # the third try fails
    assert LeftJail(0, "third_turn") in ev and s.cash[0] == 1500 - 50 and s.jail[0] == 0
    assert not any(isinstance(e, Moved) for e in ev) and s.pos[0] == jail
    while not pending(s).chance:  # an inspection window may open on the fine first
        s, _ = step(s)
    assert pending(s).kind == "dice"
    s, ev = forced_chance(s, dice=(4, 2))
    assert Moved(0, jail, jail + 6) in ev and s.pos[0] == jail + 6
    assert not EDITIONS["classico"].jail_third_try_rerolls


def _hold(s, seat, deck, kind):
    """Give ``seat`` a card of ``kind`` from ``deck`` (out of the deck, kept as the engine keeps
    it: jail cards in ``held``, others in the hand). Returns its key."""
    card = next(c.index for c in EDITIONS[ED].decks[deck] if c.kind == kind)
    s.decks[deck].remove(card)
    key = deck * 256 + card
    (s.held if kind == "get_out_of_jail_free" else s.nx[B.NX_HAND])[seat].append(key)
    return key


def test_kept_cards_can_be_traded():
    """"Le proprietà possono essere scambiate con denaro, con altre proprietà e/o con le carte
    Uscite gratis di prigione"; "Potete utilizzare una carta Uscite gratis di prigione ... (se
    ne avete una o riuscite a comprarla da un altro giocatore)" (ACCORDI E SCAMBI, In
    prigione): a trade may include kept cards, named by key deck*256+card (issue 12, item 4)."""
    s = _state(owners={1: 0})
    imp = _hold(s, 0, IMP, "free_hotel")
    jail = _hold(s, 1, 0, "get_out_of_jail_free")
    s, _ = apply_action(s, 0, A.ProposeTrade(1, (1,), (), 100, 0, (imp,), (jail,), ()))
    s, _ = apply_action(s, 1, A.AcceptTrade(0, ()))
    assert s.nx[B.NX_HAND] == [[], [imp]] and s.held == [[jail], []]
    assert s.owner[1] == 1 and s.cash == [1400, 1600]
    B.check_bills(s)


def test_a_trade_cannot_leave_two_imprevisti_in_one_hand():
    """"Potete avere una sola carta Imprevisti alla volta": a trade that would give a player a
    second Imprevisti is refused; one that swaps them is fine."""
    s = _state()
    mine = _hold(s, 0, IMP, "free_hotel")
    theirs = _hold(s, 1, IMP, "skip_rent")
    with pytest.raises(Exception) as e:
        apply_action(s, 0, A.ProposeTrade(1, (), (), 0, 0, (mine,), (), ()))
    assert e.value.code == "imprevisti_limit"
    with pytest.raises(Exception) as e:
        apply_action(s, 0, A.ProposeTrade(1, (), (), 0, 0, (mine + 2,), (), ()))
    assert e.value.code == "no_such_card"
    s, _ = apply_action(s, 0, A.ProposeTrade(1, (), (), 0, 0, (mine,), (theirs,), ()))
    s, _ = apply_action(s, 1, A.AcceptTrade(0, ()))
    assert s.nx[B.NX_HAND] == [[theirs], [mine]]


BILL_PASSAGE = ("\"Se sapete di avere una banconota falsa, cercate di tenerla fino alla fine del "
                "gioco ... Cercate anche di non far capire agli altri giocatori quali sono le "
                "banconote false\" (monopoly-niente-e-come-sembra.txt)")


def _rent_due(amount=10):
    """Seat 1 has just paid seat 0 ``amount`` of rent with the default bills: pay_bills."""
    s = _state(3, owners={1: 0}, current=1)
    s.claims.append([0, 1, 1, amount, s.turn])
    s, ev = apply_action(s, 0, A.ClaimRent(1, 1))
    return s, ev


def test_payer_chooses_the_bills_it_pays_with():
    """BILL_PASSAGE: a payment is made with the bills the payer chooses (issue 12, item 3).
    The default 10 goes back to the payer, the chosen one to the payee; the choice is public
    (BillsChosen) and only then may others inspect it."""
    s, ev = _rent_due()
    tens = [b for b in s.nx[B.NX_WALLET][1] if s.nx[B.NX_DEN][b] == 10]
    default = next(e for e in ev if isinstance(e, BillsMoved) and e.frm == 1).bills
    assert pending(s).kind == "pay_bills" and A.PayBills(default) in legal_actions(s, 1)
    other = max(tens)
    assert other not in default
    s, ev = apply_action(s, 1, A.PayBills((other,)))
    assert other in s.nx[B.NX_WALLET][0] and default[0] in s.nx[B.NX_WALLET][1]
    assert s.cash[:2] == [1510, 1490] and pending(s).kind == "inspect_window"
    assert [p for p in s.nx[B.NX_WIN]] == [[1, 0, other]]
    B.check_bills(s)


def test_paying_with_a_larger_bill_gets_change_from_the_bank():
    """"dovrà utilizzarne altre ... per completare il pagamento"; change comes from the bank
    (docs/RULES.md "Paying"): a 500 for a rent of 10 goes to the pile, the payee gets 10 and the
    payer 490 from the bank."""
    s, _ = _rent_due()
    big = next(b for b in s.nx[B.NX_WALLET][1] if s.nx[B.NX_DEN][b] == 500)
    s, _ = apply_action(s, 1, A.PayBills((big,)))
    assert big in s.nx[B.NX_PILE] and s.cash[:2] == [1510, 1490]
    assert s.nx[B.NX_WIN] == [[1, -1, big]]
    B.check_bills(s)


@pytest.mark.parametrize("pick, code", [("two_tens", "overpaid"), ("none", "not_enough"),
                                        ("theirs", "not_your_bill")])
def test_a_bad_bill_choice_is_refused_and_the_default_stands(pick, code):
    """The bills must be the payer's, cover the amount, with none to spare; a refused choice is
    silence: the default bills stay (a vanished payer cannot block the game)."""
    s, _ = _rent_due()
    den = s.nx[B.NX_DEN]
    tens = [b for b in s.nx[B.NX_WALLET][1] if den[b] == 10]
    bills = {"two_tens": tuple(sorted(tens[:2])), "none": (),
             "theirs": (s.nx[B.NX_WALLET][2][-1],)}[pick]
    with pytest.raises(Exception) as e:
        apply_action(s, 1, A.PayBills(bills))
    assert e.value.code == code
    s2, _ = step(s, seat1=A.PayBills(bills))
    s3, _ = step(s)
    assert s2 == s3 and pending(s3).kind == "inspect_window"


def test_after_a_fake_is_found_the_payer_chooses_the_other_bills():
    """"Il giocatore a cui avete controllato le banconote dovrà utilizzarne altre per portare a
    termine il pagamento": the fake's value is paid again, with bills the payer chooses."""
    s, ev = _rent_due()
    s, _ = step(s)
    bill = s.nx[B.NX_WIN][0][2]
    s, _ = apply_action(s, 2, A.InspectBill(bill))
    s, ev = apply_reveal(s, [True])
    assert pending(s).kind == "pay_bills" and pending(s).actors == (1,)
    fifty = next(b for b in s.nx[B.NX_WALLET][1] if s.nx[B.NX_DEN][b] == 50)
    s, _ = apply_action(s, 1, A.PayBills((fifty,)))
    assert s.cash == [1510, 1480, 1510] and fifty in s.nx[B.NX_PILE]
    B.check_bills(s)


def test_bot_keeps_a_known_fake_without_changing_the_denominations():
    """BILL_PASSAGE: the bot keeps a bill it knows is fake and pays with an equal genuine one
    (same denominations as the default, so the amount says nothing); with no secret in its view
    it sends nothing (the default bills: no private knowledge used)."""
    from engine.bots import _niente
    s, ev = _rent_due()
    default = next(e for e in ev if isinstance(e, BillsMoved) and e.frm == 1).bills
    view = {("bill", default[0]): True}
    assert _niente.choose(s, 1, "default", view) is None
    a = _niente.choose(s, 1, "default", _niente.PrivateView(view, b"k" * 32))
    assert isinstance(a, A.PayBills) and default[0] not in a.bills
    assert [s.nx[B.NX_DEN][b] for b in a.bills] == [10]
    s2, _ = apply_action(s, 1, a)
    assert default[0] in s2.nx[B.NX_WALLET][1]
    assert _niente.choose(s, 0, "default", _niente.PrivateView({}, b"k" * 32)) is None


def test_bot_bill_order_depends_on_its_secret_not_on_a_public_rule():
    """A careful human gives a random-looking one of several identical genuine bills: with no
    fakes known, two secrets can hand over different (equal) bills, so an observer cannot tell a
    kept fake from a bill that simply was not picked."""
    from engine.bots import _niente
    s, ev = _rent_due()
    default = next(e for e in ev if isinstance(e, BillsMoved) and e.frm == 1).bills
    chosen = set()
    for k in range(8):
        a = _niente.choose(s, 1, "default", _niente.PrivateView({}, bytes([k]) * 32))
        chosen.add(a.bills if a is not None else tuple(default))
    assert len(chosen) >= 2


def test_spending_fakes_first_hands_over_the_known_fake_and_takes_genuine_change():
    """BILL_PASSAGE, the other way round (the player's "spendi prima le false" default, ui):
    a payer that knows a €50 is fake pays a €10 rent with it; the bank gives €40 of change
    ("il resto"), the fake goes to the pile; the choice is a legal PayBills."""
    from engine.bots import _niente
    from engine.rules.bill_choice import choice_error
    s, _ = _rent_due()
    den = s.nx[B.NX_DEN]
    fake = next(b for b in s.nx[B.NX_WALLET][1] if den[b] == 50)
    view = _niente.PrivateView({("bill", fake): True}, b"k" * 32)
    a = _niente.spend_choice(s, 1, view)
    assert a == A.PayBills((fake,)) and choice_error(s, 1, a.bills) is None
    assert _niente.keep_fakes(s, 1, view) != [fake]  # keeping it pays a genuine €10
    s, _ = apply_action(s, 1, a)
    assert fake in s.nx[B.NX_PILE] and s.cash[:2] == [1510, 1490]
    assert sum(den[b] for b in s.nx[B.NX_WALLET][1]) == 1490
    B.check_bills(s)


def test_spending_fakes_first_leaves_out_what_is_not_needed():
    """Two known fake €10 for a €20 rent: both, nothing else; no known fake: the default."""
    from engine.bots import _niente
    s, _ = _rent_due(20)
    den = s.nx[B.NX_DEN]
    tens = [b for b in s.nx[B.NX_WALLET][1] if den[b] == 10][:2]
    view = _niente.PrivateView({("bill", b): True for b in tens}, b"k" * 32)
    assert _niente.spend_fakes(s, 1, view) == sorted(tens)
    assert _niente.spend_choice(s, 1, _niente.PrivateView({}, b"k" * 32)) is None


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 149).map(lambda k: 10 * k), st.sets(st.integers(0, 11)),
       st.binary(min_size=1, max_size=8))
def test_bill_choice_helpers_always_make_a_legal_choice(amount, fake_idx, secret):
    """Property: for any amount the payer can pay and any set of its bills it knows to be
    fake, keep_fakes and spend_fakes name bills that pass choice_error (its own, enough, none
    to spare); keep_fakes pays the default denominations and keeps a known fake unless every
    equal bill is taken; spend_fakes hands over at least as much known-fake money as keep_fakes."""
    from engine.bots import _niente
    from engine.rules.bill_choice import choice_error, choosable_bills, default_bills
    s, _ = _rent_due(amount)
    den = s.nx[B.NX_DEN]
    before = choosable_bills(s, 1)
    fakes = {before[i] for i in fake_idx if i < len(before)}
    view = _niente.PrivateView({("bill", b): True for b in fakes}, secret)
    keep, spend = _niente.keep_fakes(s, 1, view), _niente.spend_fakes(s, 1, view)
    for pick in (keep, spend):
        assert choice_error(s, 1, tuple(pick)) is None, (amount, fakes, pick)
    assert sorted(den[b] for b in keep) == sorted(den[b] for b in default_bills(s, 1))
    for b in set(keep) & fakes:
        assert all(c in keep or c in fakes for c in before if den[c] == den[b])
    assert sum(den[b] for b in set(spend) & fakes) >= sum(den[b] for b in set(keep) & fakes)
