"""Turns, dice, movement, VIA!, taxes (monopoly-classico-hasbro.txt)."""
from engine import apply_chance, new_game, pending
from engine.actions import RollDice
from engine.events import FirstPlayerRolled, TurnStarted
from engine.state import P_FIRST
from engine.testing import ScriptedRng, forced_chance, roll, scenario, step


def test_first_player_highest_total_ties_reroll():
    """"Ogni giocatore lancia tutti e 2 i dadi. Chi ha ottenuto il numero più alto inizia per
    primo, e poi il gioco prosegue in senso orario." Ties re-roll among the tied."""
    s = new_game("classico", 3)
    assert pending(s).kind == "first_player" and pending(s).chance
    # round 1: 3+4=7, 6+1=7, 1+1=2 -> seats 0 and 1 tie; round 2: 2+2=4, 5+6=11.
    s2, ev = forced_chance(s, dice=[3, 4, 6, 1, 1, 1, 2, 2, 5, 6])
    rounds = [e for e in ev if isinstance(e, FirstPlayerRolled)]
    assert [r.seats for r in rounds] == [(0, 1, 2), (0, 1)]
    assert s2.current == 1 and pending(s2).kind == "roll" and pending(s2).actors == (1,)
    assert TurnStarted(1) in ev


def test_first_player_from_one_beacon_is_deterministic():
    s = new_game("classico", 4)
    a, _ = apply_chance(s, b"\x01" * 32)
    b, _ = apply_chance(s, b"\x01" * 32)
    assert a == b and s.phase == P_FIRST  # argument untouched


def test_move_and_turn_passes_in_seat_order():
    """"Fate avanzare la vostra pedina ... Passate i dadi al giocatore alla vostra sinistra.\""""
    s = scenario(3, current=2)
    s, _ = roll(s, 2, 3)  # lands on 5 Stazione Sud (unowned) -> buy decision
    assert s.pos[2] == 5 and pending(s).kind == "buy_or_auction"
    s = scenario(3, current=2)
    s, _ = roll(s, 6, 4)  # 10: Transito (just visiting)
    assert s.pos[2] == 10 and s.current == 0 and pending(s).kind == "roll"


def test_double_rolls_again_and_third_double_jails():
    """"Se ottenete lo stesso numero su entrambi i dadi ... giocate immediatamente un nuovo
    turno"; "numero doppio per 3 volte di seguito ... andare direttamente in prigione"."""
    s = scenario(2)
    s, _ = roll(s, 5, 5)  # 10 Transito
    assert s.current == 0 and s.pos[0] == 10 and s.doubles == 1
    s, _ = roll(s, 5, 5)  # 20 Parcheggio gratuito
    assert s.current == 0 and s.doubles == 2
    s, _ = roll(s, 1, 1)
    assert s.pos[0] == 10 and s.jail[0] == 1 and s.current == 1


def test_go_salary_on_passing_and_landing():
    """"Se con la vostra pedina superate o andate a fermarvi sulla casella del VIA!, ritirate
    a200 dalla Banca.\""""
    s = scenario(2, pos={0: 35})
    s, _ = roll(s, 2, 3)  # 40 -> VIA!
    assert s.pos[0] == 0 and s.cash[0] == 1700
    s = scenario(2, pos={0: 39})
    s, _ = roll(s, 3, 4)  # 6 Bastioni (unowned)
    assert s.cash[0] == 1700


def test_go_to_jail_square_no_salary():
    """"In prigione! ... Non ritirate a200 se passate dal VIA! Il vostro turno finisce qui.\""""
    s = scenario(2, pos={0: 24})
    s, _ = roll(s, 3, 3)  # 30: In prigione!, even with a double
    assert s.pos[0] == 10 and s.jail[0] == 1 and s.cash[0] == 1500 and s.current == 1


def test_taxes():
    """"Tassa patrimoniale e Tassa di Lusso: Pagate alla Banca la somma indicata\""""
    s = scenario(2)
    s, _ = roll(s, 1, 3)
    assert s.cash[0] == 1300
    s = scenario(2, pos={0: 35})
    s, _ = roll(s, 1, 2)
    assert s.cash[0] == 1400


def test_decision_step_does_not_reveal_dice():
    """DESIGN §2: RollDice is a decision; the dice come in the following chance step."""
    s = scenario(2)
    s2, ev = step(s, seat0=RollDice())
    assert pending(s2).kind == "dice" and pending(s2).chance and s2.pos[0] == 0
    assert ScriptedRng  # helper exported for chance forcing
