"""Jail (monopoly-classico-hasbro.txt, "Come si esce di prigione?")."""
from engine import legal_actions, pending
from engine.actions import BuildHouse, PayJailFine, UseJailCard
from engine.state import P_ROLL
from engine.testing import roll, scenario, step


def _jailed(**kw):
    s = scenario(2, pos={0: 10}, jail={0: 1}, **kw)
    assert pending(s).kind == "jail"
    return s


def test_pay_fine_then_roll_normally():
    """"Pagate b50 all'inizio del vostro prossimo turno, poi lanciate i dadi e muovete\""""
    s, _ = step(_jailed(), seat0=PayJailFine())
    assert s.jail[0] == 0 and s.cash[0] == 1450 and pending(s).kind == "roll"
    s, _ = roll(s, 1, 2)
    assert s.pos[0] == 13


def test_use_card_goes_back_under_deck():
    """"Usate una carta Uscite gratis di prigione ... Rimettete la carta in fondo al mazzo\""""
    s = _jailed()
    s.decks[0].remove(4)
    s.held[0] = [4]  # Probabilità card 4 is the jail card
    assert UseJailCard(0) in legal_actions(s, 0)
    s, _ = step(s, seat0=UseJailCard(0))
    assert s.jail[0] == 0 and s.held[0] == [] and s.decks[0][-1] == 4


def test_double_frees_and_ends_turn():
    """"Se ci riuscite, siete liberi! Muovete secondo il numero totalizzato e terminate il
    vostro turno.\""""
    s, _ = roll(_jailed(), 3, 3)
    assert s.jail[0] == 0 and s.pos[0] == 16 or pending(s).kind == "buy_or_auction"
    assert s.doubles == 0


def test_failed_tries_then_third_pays_and_moves():
    """"Se non ci riuscite entro il terzo turno ... pagate b50 e usate il totale ottenuto con
    l'ultimo lancio per avanzare.\""""
    s = _jailed()
    s, _ = roll(s, 1, 2)
    assert s.jail[0] == 2 and s.pos[0] == 10 and s.current == 1
    s.current, s.phase = 0, P_ROLL
    s.jail[0] = 3
    s, _ = roll(s, 1, 3)
    assert s.jail[0] == 0 and s.cash[0] == 1450 and s.pos[0] == 14


def test_jailed_player_still_builds_and_collects():
    """"Mentre siete in prigione, potete comunque continuare a riscuotere gli affitti,
    partecipare alle aste, comprare case e alberghi, ipotecare e fare scambi.\""""
    s = scenario(2, current=1, pos={0: 10}, jail={0: 1}, owners={1: 0, 3: 0})
    assert BuildHouse(1) in legal_actions(s, 0)
    s, _ = roll(s, 1, 2)  # seat 1 lands on 3, seat 0's
    assert any(a.CODE == 16 for a in legal_actions(s, 0))
