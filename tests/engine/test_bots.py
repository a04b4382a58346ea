"""engine.bots: deterministic bots (DESIGN.md §1 "Bots are part of the engine's package and
deterministic"), one scenario per decision, each naming the rulebook passage it plays by
(rulebooks/monopoly-classico-hasbro.txt)."""
import pytest

from engine import (apply_action, apply_step, chance_inplace, encode_state, new_game,
                    state_hash, step_inplace)
from engine.actions import (AcceptTrade, Bid, BuildHouse, BuyProperty, ClaimRent,
                            DeclareBankruptcy, DeclineProperty, DrawCardInstead, LiftMortgage,
                            Mortgage, PassBid, PayCardFine, PayJailFine, ProposeTrade,
                            RejectTrade, RollDice, SellBuilding, SettleMortgages, UseJailCard)
from engine.bots import BOTS, choose, play_game
from engine.bots._profile import scaled
from engine.bots.play import beacon
from engine.events import TradeProposed
from engine.rng import BeaconRng
from engine.state import CHANCE_PHASES, P_AUCTION, P_BUY, P_CHOICE, P_INHERIT, P_OVER, P_ROLL
from engine.testing import roll, scenario, step

# Classico squares used below.
VICOLO_CORTO, VICOLO_STRETTO = 1, 3                      # brown set
BASTIONI, VIALE_MONTEROSA, VIALE_VESUVIO = 6, 8, 9       # light-blue set
VIALE_COSTANTINO, VIALE_TRAIANO, PIAZZA_GIULIO = 31, 32, 34  # green set
VIALE_DEI_GIARDINI, PARCO_DELLA_VITTORIA = 37, 39        # dark-blue set
STAZIONE_SUD = 5


def test_registry_has_several_profiles_and_unknown_bot_raises():
    assert {"default", "cautious", "aggressive"} <= set(BOTS)
    s = scenario(2)
    with pytest.raises(KeyError):
        choose(s, 0, "nope")


def test_choose_is_a_pure_function_of_the_state():
    # DESIGN.md §1: a seat whose player left is played by every peer identically.
    s = scenario(3, owners={VICOLO_CORTO: 0, VICOLO_STRETTO: 0}, cash={0: 900})
    before = encode_state(s)
    first = [choose(s, i, b) for i in range(3) for b in BOTS]
    assert encode_state(s) == before
    again = [choose(s.copy(), i, b) for i in range(3) for b in BOTS]
    assert first == again


def test_non_actors_do_nothing_and_actor_rolls():
    s = scenario(3, current=1)
    assert choose(s, 0) is None and choose(s, 2) is None
    assert choose(s, 1) == RollDice()


def test_claims_rent_at_once():
    # "questi deve chiedervi di pagargli l'affitto ... Se invece non lo fa prima che il
    # giocatore successivo abbia lanciato i dadi, non dovete pagargli più nulla!"
    s = scenario(2, owners={VICOLO_STRETTO: 1})
    s, _ = roll(s, 1, 2)  # seat 0 lands on Vicolo Stretto
    a = choose(s, 1)
    assert a == ClaimRent(VICOLO_STRETTO, 0)
    cash = s.cash[1]
    s, _ = step(s, seat1=a)
    assert s.cash[1] == cash + 4  # base rent of Vicolo Stretto


def test_buys_above_reserve_and_declines_below():
    # "Quando finite ... su una strada ... che non è posseduta da alcun giocatore, potete
    # comprarla oppure farla mettere immediatamente all'asta."
    s = scenario(2)
    s, _ = roll(s, 3, 3)  # Bastioni Gran Sasso, €100
    assert s.phase == P_BUY
    assert choose(s, 0) == BuyProperty()
    poor = scenario(2, cash={0: 180})
    poor, _ = roll(poor, 3, 3)
    assert choose(poor, 0) == DeclineProperty()


def test_buys_to_complete_a_set_even_when_short_of_reserve():
    # "Collezionate serie complete di strade dello stesso colore!"
    s = scenario(2, cash={0: 160}, owners={VICOLO_CORTO: 0})
    s, _ = roll(s, 1, 2)  # Vicolo Stretto, €60
    assert choose(s, 0) == BuyProperty()


def test_auction_bids_up_to_a_ceiling_then_passes():
    # "Le offerte partono da a10 e tutti i giocatori vi possono partecipare aumentando
    # l'offerta precedente di un minimo di a1."
    s = scenario(2, cash={0: 180})
    s, _ = roll(s, 3, 3)
    s, _ = step(s, seat0=DeclineProperty())
    assert s.phase == P_AUCTION
    a = choose(s, 1)
    assert isinstance(a, Bid) and 10 <= a.amount <= 100 * BOTS["default"].bid_pct // 100
    # A high bid far above the property's worth: every bot passes.
    s.auc_bidder, s.auc_high = 0, 400
    assert choose(s, 1) == PassBid()


def test_builds_evenly_on_a_complete_set_and_keeps_a_reserve():
    # "Le case devono essere costruite in maniera equilibrata sulle varie strade"
    s = scenario(2, cash={0: 1000}, owners={BASTIONI: 0, VIALE_MONTEROSA: 0, VIALE_VESUVIO: 0},
                 levels={BASTIONI: 1})
    a = choose(s, 0)
    assert isinstance(a, BuildHouse) and a.square in (VIALE_MONTEROSA, VIALE_VESUVIO)
    poor = scenario(2, cash={0: 120}, owners={BASTIONI: 0, VIALE_MONTEROSA: 0, VIALE_VESUVIO: 0})
    assert choose(poor, 0) == RollDice()


def test_no_building_on_a_set_with_a_mortgaged_street():
    # "Su una strada non si possono costruire edifici se qualsiasi altra strada appartenente
    # allo stesso gruppo è stata ipotecata." The rich bot lifts the mortgage first.
    s = scenario(2, cash={0: 1500}, owners={BASTIONI: 0, VIALE_MONTEROSA: 0, VIALE_VESUVIO: 0},
                 mortgaged=[VIALE_VESUVIO])
    assert choose(s, 0) == LiftMortgage(VIALE_VESUVIO)
    poorer = scenario(2, cash={0: 300},
                      owners={BASTIONI: 0, VIALE_MONTEROSA: 0, VIALE_VESUVIO: 0},
                      mortgaged=[VIALE_VESUVIO])
    assert choose(poorer, 0) == RollDice()


def test_jail_card_first_then_fine_early_then_stays_when_rents_are_high():
    # "Come si esce di prigione? Avete 3 possibilità: 1. Pagate b50 ... 2. Usate una carta
    # Uscite gratis di prigione ... 3. Cercare di ottenere un numero doppio"
    s = scenario(2, jail={0: 1})
    assert choose(s, 0) == PayJailFine()
    s.held[0] = [1 * 256 + 7]
    s.decks[1].remove(7)
    assert choose(s, 0) == UseJailCard(1)
    owners = {sq: 1 for sq in s.tb.properties}
    late = scenario(2, jail={0: 1}, owners=owners,
                    levels={PARCO_DELLA_VITTORIA: 5, VIALE_DEI_GIARDINI: 5})
    assert choose(late, 0) == RollDice()


def test_raise_money_mortgages_lone_property_before_selling_houses():
    # "AIUTO! NON RIESCO PIÙ A PAGARE! ... vendendo i vostri edifici alla Banca e/o
    # ipotecando le vostre proprietà."
    s = scenario(2, cash={0: 0, 1: 1500},
                 owners={BASTIONI: 0, VIALE_MONTEROSA: 0, VIALE_VESUVIO: 0, STAZIONE_SUD: 0,
                         VICOLO_STRETTO: 1},
                 levels={BASTIONI: 1, VIALE_MONTEROSA: 1, VIALE_VESUVIO: 1})
    s, _ = roll(s, 1, 2)
    s, _ = step(s, seat1=ClaimRent(VICOLO_STRETTO, 0))
    assert s.debts and s.debts[0][0] == 0
    assert choose(s, 0) == Mortgage(STAZIONE_SUD)
    s.mort[STAZIONE_SUD] = 1  # already mortgaged: now a house must go
    a = choose(s, 0)
    assert isinstance(a, SellBuilding)


def test_declares_bankruptcy_only_when_nothing_can_pay():
    # "Se dopo aver raccolto questi contanti siete ancora in debito, siete andati in
    # bancarotta"
    s = scenario(2, cash={0: 0}, owners={VICOLO_CORTO: 1, VICOLO_STRETTO: 1},
                 levels={VICOLO_CORTO: 5, VICOLO_STRETTO: 5})
    s, _ = roll(s, 1, 2)
    s, _ = step(s, seat1=ClaimRent(VICOLO_STRETTO, 0))
    assert choose(s, 0) == DeclareBankruptcy()
    # With a property worth mortgaging the bot mortgages instead.
    s2 = scenario(2, cash={0: 0}, owners={VICOLO_STRETTO: 1, STAZIONE_SUD: 0})
    s2, _ = roll(s2, 1, 2)
    s2, _ = step(s2, seat1=ClaimRent(VICOLO_STRETTO, 0))
    assert choose(s2, 0) == Mortgage(STAZIONE_SUD)


def test_trade_completing_both_sets_is_proposed_and_accepted():
    # "In qualsiasi momento della partita i giocatori possono comprare, vendere o scambiare
    # le proprietà fra loro."
    s = scenario(2, owners={VICOLO_CORTO: 0, VIALE_DEI_GIARDINI: 0,
                            VICOLO_STRETTO: 1, PARCO_DELLA_VITTORIA: 1})
    a = choose(s, 0)
    assert isinstance(a, ProposeTrade) and a.partner == 1
    assert {a.give_squares, a.get_squares} == {(VIALE_DEI_GIARDINI,), (VICOLO_STRETTO,)}
    s, _ = apply_action(s, 0, a)
    assert choose(s, 0) == RollDice()  # its offer is open: no second proposal
    reply = choose(s, 1)
    assert reply == AcceptTrade(0, ())
    s, _ = apply_action(s, 1, reply)
    sets = {(s.owner[VICOLO_CORTO], s.owner[VICOLO_STRETTO]),
            (s.owner[VIALE_DEI_GIARDINI], s.owner[PARCO_DELLA_VITTORIA])}
    assert sets == {(0, 0), (1, 1)}


def test_gift_requests_are_rejected():
    s = scenario(2, owners={VICOLO_CORTO: 0, VICOLO_STRETTO: 1})
    s, _ = apply_action(s, 0, ProposeTrade(1, (), (VICOLO_STRETTO,), 0, 0, (), (), ()))
    assert choose(s, 1) == RejectTrade(0)


def test_offer_that_can_no_longer_be_carried_out_is_rejected():
    s = scenario(2, owners={VICOLO_CORTO: 0, VICOLO_STRETTO: 1})
    s, _ = apply_action(s, 0, ProposeTrade(1, (VICOLO_CORTO,), (), 0, 10, (), (), ()))
    s.owner[VICOLO_CORTO] = -1  # the offered street left the proposer meanwhile
    assert choose(s, 1) == RejectTrade(0)


def test_bots_propose_at_most_one_trade_per_turn_on_their_schedule():
    # A rejected offer must not come back at every step: a bot makes at most one offer in a
    # turn (counting offers the engine opened), and only in the turns its schedule allows
    # ((turn // seats) % trade_every == 0).
    names = ["default", "cautious", "aggressive", "default"]
    for seed in range(6):
        s = new_game("classico", 4)
        opened: list[tuple[int, int]] = []
        k = 0
        ev: list = []
        while s.phase != P_OVER and s.turn < 2000:
            if s.phase in CHANCE_PHASES:
                chance_inplace(s, BeaconRng(beacon(seed, k)), ev)
                k += 1
                continue
            inputs = [choose(s, i, names[i]) for i in range(4)]
            for i, a in enumerate(inputs):
                if isinstance(a, ProposeTrade):
                    assert (s.turn // 4) % BOTS[names[i]].trade_every == 0
            ev.clear()
            step_inplace(s, inputs, ev)
            opened += [(e.proposer, s.turn) for e in ev if isinstance(e, TradeProposed)]
        assert s.phase == P_OVER
        assert opened, "bots never traded"
        assert len(opened) == len(set(opened)), "two offers by one bot in one turn"


def test_settles_inherited_mortgages_within_its_cash():
    # Regole, bancarotta verso un giocatore: "Il nuovo proprietario deve immediatamente:
    # estinguere l'ipoteca ... oppure mantenere l'ipoteca (pagando subito alla Banca il 10%)"
    s = scenario(3, cash={0: 2000})
    s.owner[VIALE_COSTANTINO] = 0
    s.owner[VIALE_TRAIANO] = 0
    s.mort[VIALE_TRAIANO] = s.mort[PIAZZA_GIULIO] = 1
    s.owner[PIAZZA_GIULIO] = 0
    s.resume.append(s.phase)
    s.inherit = [0, VIALE_TRAIANO, PIAZZA_GIULIO]
    s.phase = P_INHERIT
    a = choose(s, 0)
    assert a == SettleMortgages((VIALE_TRAIANO, PIAZZA_GIULIO))
    s2, _ = apply_action(s, 0, a)
    assert s2.cash[0] >= BOTS["default"].reserve
    poor = s.copy()
    poor.bank += poor.cash[0] - 30
    poor.cash[0] = 30
    assert choose(poor, 0) == SettleMortgages(())


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6, 7, 8])
def test_bot_games_end_with_a_winner(seats):
    # "fino a quando resta un solo giocatore, che vince e viene proclamato monopolista!"
    names = [("default", "cautious", "aggressive")[i % 3] for i in range(seats)]
    for seed in range(3):
        r = play_game(seats, seed, names, max_steps=60_000)
        assert r.finished and 0 <= r.winner < seats, r


def test_bots_never_act_for_a_bankrupt_seat_or_after_the_end():
    r = play_game(3, 1)
    assert r.finished
    s = new_game("classico", 3)
    s.out[2] = 1
    s.phase = P_ROLL
    s.current = 2
    assert choose(s, 2) is None


def test_apply_step_with_all_bots_keeps_its_input():
    s = scenario(3, owners={VICOLO_CORTO: 0, VICOLO_STRETTO: 1})
    h = state_hash(s)
    apply_step(s, [choose(s, i) for i in range(3)])
    assert state_hash(s) == h


def test_building_shortage_auction_bids_within_twice_the_cost():
    # "Se più giocatori vogliono comprare l'ultima casa o l'ultimo albergo disponibile, il
    # Banchiere deve metterli all'asta. Le offerte partono da a10"
    orange, red, yellow = (16, 18, 19), (21, 23, 24), (26, 27, 29)
    owners = {sq: 2 for sq in orange + red + yellow}
    owners.update({VICOLO_CORTO: 0, VICOLO_STRETTO: 0,
                   BASTIONI: 1, VIALE_MONTEROSA: 1, VIALE_VESUVIO: 1})
    levels = {sq: 4 for sq in orange + red}
    levels.update({26: 3, 27: 2, 29: 2})
    s = scenario(3, cash={0: 1000, 1: 1000}, owners=owners, levels=levels)
    assert s.houses == 1
    s, _ = step(s, seat0=BuildHouse(VICOLO_CORTO), seat1=BuildHouse(BASTIONI))
    assert s.phase == P_AUCTION
    for seat in (0, 1):  # protocol.md part B: up to 2 × building cost × bid_pct %
        a = choose(s, seat)
        assert isinstance(a, Bid) and 10 <= a.amount <= 2 * 50 * BOTS["default"].bid_pct // 100
    s.auc_bidder, s.auc_high = 0, 150
    assert choose(s, 1) == PassBid()


def test_bidder_bids_before_claiming_rent():
    # engine.rules.auction: a bidder sending anything but a Bid leaves the auction; the claim
    # can wait, it lapses only when the next dice are rolled ("prima che il giocatore
    # successivo abbia lanciato i dadi").
    s = scenario(2, cash={0: 180})
    s, _ = roll(s, 3, 3)
    s, _ = step(s, seat0=DeclineProperty())
    s.claims.append([1, 0, VICOLO_STRETTO, 4, s.turn])
    assert isinstance(choose(s, 1), Bid)


def test_pay_or_draw_card_pays_when_the_fine_leaves_the_reserve():
    # editrice-giochi Probabilità: "Pagate una multa di € 25, oppure prendete un cartoncino
    # dagli Imprevisti".
    s = scenario(2, edition="editrice-giochi")
    s.phase = P_CHOICE
    s.draw_deck = 0 * 256 + 15
    assert choose(s, 0) == PayCardFine()
    assert choose(s, 1) is None
    poor = scenario(2, edition="editrice-giochi", cash={0: 300})
    poor.phase = P_CHOICE
    poor.draw_deck = 0 * 256 + 15
    assert choose(poor, 0) == DrawCardInstead()


def test_profiles_scale_with_the_edition_money():
    # Editrice Giochi prices are the classic ones x 2.5 (VIA! €500 instead of €200).
    assert scaled("default", 200) == BOTS["default"]
    big = scaled("default", 500)
    assert big.reserve == BOTS["default"].reserve * 5 // 2
    assert big.margin == BOTS["default"].margin * 5 // 2


# ------------------------------------------------------------------ issue 14: speed, same bots
# The bots' fast paths (closed-form trade gains, memos keyed on the board by value, choose_all's
# direct branches) must decide exactly as the plain definitions: these properties check them
# on random boards and in whole games (bench/bench_bots.py checks them against the bots before
# issue 14).

from hypothesis import given, settings, strategies as hst  # noqa: E402

from engine.bots import _trade, _value, choose_all  # noqa: E402
from engine.editions import K_STREET  # noqa: E402

_CLASSICO = new_game("classico", 4)
_PROPS = tuple(_CLASSICO.tb.properties)


@settings(max_examples=150, deadline=None)
@given(owners=hst.lists(hst.integers(-1, 3), min_size=len(_PROPS), max_size=len(_PROPS)),
       morts=hst.lists(hst.booleans(), min_size=len(_PROPS), max_size=len(_PROPS)),
       seat=hst.integers(0, 3), bot=hst.sampled_from(sorted(BOTS)))
def test_trade_candidates_gains_equal_trade_gain(owners, morts, seat, bot):
    # _trade._candidates computes both sides' gains from the parts of split colour sets; they
    # must equal trade_gain's valuation of the whole ownership list before and after.
    s = scenario(4, owners={sq: o for sq, o in zip(_PROPS, owners) if o >= 0},
                 mortgaged=[sq for sq, o, m in zip(_PROPS, owners, morts) if o >= 0 and m])
    st = _value.static(s)
    prof = scaled(bot, s.ed.go_salary)
    for q, gets, gives, g_me, g_q, fee_gets, fee_gives in _trade._candidates(s, st, prof, seat):
        assert g_me == _trade.trade_gain(s, st, prof, seat, q, gets, gives, 0)
        assert g_q == _trade.trade_gain(s, st, prof, q, seat, gives, gets, 0)
        assert fee_gets == sum(s.tb.fee[sq] for sq in gets if s.mort[sq])
        assert fee_gives == sum(s.tb.fee[sq] for sq in gives if s.mort[sq])
        assert g_me + g_q >= 2 * prof.margin


def _plain_worst_rent(s, seat):
    """worst_rent from its definition: every opponent's unmortgaged property, no memo."""
    st = _value.static(s)
    worst = 0
    for sq in st.properties:
        o = s.owner[sq]
        if o < 0 or o == seat or s.mort[sq]:
            continue
        if s.tb.kind[sq] == K_STREET:  # its rent at its level (0: the whole-set rent)
            r = st.street_rent[sq][s.level[sq]]
        else:
            units = st.rent_units
            squares, get, rents, mult = units[0] if sq in st.stations else units[1]
            r = rents[[s.owner[m] for m in squares].count(o) - 1] * mult
        worst = max(worst, r)
    return worst


@settings(max_examples=100, deadline=None)
@given(boards=hst.lists(hst.tuples(
    hst.lists(hst.integers(-1, 3), min_size=len(_PROPS), max_size=len(_PROPS)),
    hst.lists(hst.booleans(), min_size=len(_PROPS), max_size=len(_PROPS))), min_size=1,
    max_size=4), seats=hst.lists(hst.integers(0, 3), min_size=1, max_size=6))
def test_board_memos_give_the_plain_answers(boards, seats):
    # worst_rent, owns_mortgaged and board are memoised on the board's lists by value: asked
    # about boards in any order (a board again after another, the same lists in another
    # state object) they answer as computed afresh.
    states = [scenario(4, owners={sq: o for sq, o in zip(_PROPS, ow) if o >= 0},
                       mortgaged=[sq for sq, o, m in zip(_PROPS, ow, mo) if o >= 0 and m])
              for ow, mo in boards]
    for s in states + [x.copy() for x in reversed(states)]:
        st = _value.static(s)
        for seat in seats:
            assert _value.worst_rent(s, st, seat) == _plain_worst_rent(s, seat)
            assert _value.owns_mortgaged(s, st, seat) == any(
                s.owner[sq] == seat and s.mort[sq] for sq in _PROPS)
            full = _value.board(s, st)[0].get(seat, ())
            assert set(full) == {gi for gi, g in enumerate(st.groups)
                                 if all(s.owner[m] == seat for m in g)}


@pytest.mark.parametrize("edition", ["classico", "editrice-giochi", "fabrianopoli"])
def test_choose_all_is_choose_seat_by_seat(edition):
    # choose_all's direct branches (claims, one actor, auction bidders) against choose at
    # every decision step of whole games, with mixed profiles.
    for seats, seed in ((2, 1), (4, 2), (5, 3)):
        names = [sorted(BOTS)[(i + seed) % len(BOTS)] for i in range(seats)]
        s = new_game(edition, seats)
        ev: list = []
        k = 0
        while s.phase != P_OVER and k < 4000:
            if s.phase in CHANCE_PHASES:
                chance_inplace(s, BeaconRng(beacon(seed, k)), ev)
                k += 1
            else:
                inputs = choose_all(s, names)
                assert inputs == [choose(s, i, names[i]) for i in range(seats)]
                step_inplace(s, inputs, ev)
            ev.clear()
