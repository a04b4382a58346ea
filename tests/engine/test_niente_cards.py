"""niente-e-come-sembra, Imprevisti and Probabilità cards: one test per rule, each naming the
rulebook passage (rulebooks/monopoly-niente-e-come-sembra.txt) or the design choice of docs/RULES.md.

Taking a face-up Imprevisti and the refill, one swap at most, Probabilità kept unless immediate,
fake Imprevisti found by an inspector, the free-hotel and skip-rent cards, kept cards in trades.
Shared helpers: tests/engine/niente_kit.py.
"""

import pytest

from engine import EDITIONS, apply_action, pending
from engine import actions as A
from engine.rules import banknotes as B
from engine.rules.niente_events import CardInspected
from engine import apply_reveal
from engine.state import HOTEL
from engine.testing import forced_chance, roll, step

from niente_kit import ED, IMP, scenario_with_bills as _state


def _imp_card(kind):
    return next(c.index for c in EDITIONS[ED].decks[IMP] if c.kind == kind)


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
