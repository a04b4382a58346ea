"""The timed game (monopoli-editrice-giochi.txt "Conclusione del gioco", fabrianopoli.txt
"Velocizzare il gioco"): TimeUp is a vote (a strict majority of the seats still in ends the
time), the end of the current turn, net worth."""
import pytest

from engine import IllegalAction, apply_action, legal_actions, new_game, pending, standings
from engine.actions import Mortgage, RollDice, TimeUp
from engine.events import ActionRefused, GameWon, TimeExpired, TimeVoted
from engine.rules.endgame import net_worth
from engine.rules.timed import EXPIRED, absent_vote, expired
from engine.testing import roll, scenario, step

TIMED = {"timed_minutes": 90}


def test_time_up_needs_a_timed_game():
    """The duration is agreed at the start ("All'inizio del gioco, si stabilisce la durata");
    classico has no timed game, so the option is unknown there."""
    s = scenario(2, edition="editrice-giochi")
    with pytest.raises(IllegalAction) as e:
        apply_action(s, 0, TimeUp())
    assert e.value.code == "not_timed" and TimeUp() not in legal_actions(s, 0)
    with pytest.raises(ValueError):
        new_game("classico", 2, TIMED)


def test_time_up_is_a_vote_of_a_strict_majority():
    """"All'inizio del gioco, si stabilisce la durata della partita": the players agree the
    time, so one player's say-so is not enough (docs/RULES.md "Timed game"): with 3 seats
    still in, the second vote ends the time; votes are kept in the state."""
    s = scenario(3, edition="editrice-giochi", options=TIMED)
    assert TimeUp() in legal_actions(s, 2)
    s, ev = step(s, seat1=TimeUp())
    assert ev == (TimeVoted(1, 1, 2),) and not expired(s) and s.time_up == 0b010
    assert TimeUp() not in legal_actions(s, 1) and TimeUp() in legal_actions(s, 0)
    s, ev = step(s, seat2=TimeUp())
    assert ev == (TimeVoted(2, 2, 2), TimeExpired(2)) and s.time_up == EXPIRED | 0b110
    assert TimeUp() not in legal_actions(s, 0) and pending(s).kind == "roll"


def test_time_up_is_idempotent_per_seat():
    """A repeated vote (a peer re-sending it) changes nothing and counts once."""
    s = scenario(4, edition="fabrianopoli", options=TIMED)
    s, _ = step(s, seat3=TimeUp())
    s2, ev = step(s, seat3=TimeUp())
    assert s2 == s and ev == ()
    s, ev = step(s, seat0=TimeUp())  # 2 of 4 is not a strict majority
    assert not expired(s) and ev == (TimeVoted(0, 2, 3),)


def test_one_dishonest_seat_cannot_end_the_game():
    """A lone TimeUp, repeated every step, never ends a 2-seat game's time (2 of 2 needed)."""
    s = scenario(2, edition="editrice-giochi", options=TIMED, pos={0: 0})
    for _ in range(3):
        s, _ = step(s, seat1=TimeUp())
    s, _ = roll(s, 4, 6)  # 0 -> 10, just visiting: the turn ends, the game goes on
    assert not expired(s) and not pending(s).terminal and s.current == 1


def test_time_up_from_a_bankrupt_seat_is_refused():
    """Only the seats still in the game vote; a bankrupt seat's TimeUp changes nothing."""
    s = scenario(3, edition="fabrianopoli", options=TIMED)
    s.out[2] = 1
    s2, ev = step(s, seat2=TimeUp())
    assert s2 == s and ev == (ActionRefused(2, TimeUp.CODE, "bankrupt"),)
    assert legal_actions(s, 2) == []


def test_a_bankruptcy_can_make_the_majority():
    """Votes are counted again when the turn ends: 2 of 4 votes, a non-voter goes bankrupt,
    2 of 3 seats still in is a strict majority."""
    s = scenario(4, edition="editrice-giochi", options=TIMED, pos={0: 0})
    s, _ = step(s, seat1=TimeUp(), seat2=TimeUp())
    s.out[3] = 1
    s, ev = roll(s, 4, 6)
    assert TimeExpired(-1) in ev and pending(s).terminal


def test_dropped_seats_join_a_majority_of_the_others():
    """absent_vote: the seats the peers dropped vote once a strict majority of the seats
    neither bankrupt nor dropped have voted (then the majority of all seats still in holds)."""
    s = scenario(4, edition="editrice-giochi", options=TIMED)
    assert not absent_vote(s, 3, {2, 3})
    s, _ = step(s, seat0=TimeUp())
    assert not absent_vote(s, 3, {2, 3})  # 1 of the 2 present seats
    s, _ = step(s, seat1=TimeUp())
    assert absent_vote(s, 2, {2, 3}) and absent_vote(s, 3, {2, 3})
    s, ev = step(s, seat2=TimeUp())
    assert TimeExpired(2) in ev and not absent_vote(s, 3, {2, 3})
    untimed = scenario(4, edition="editrice-giochi")
    assert not absent_vote(untimed, 3, {3})


def test_game_ends_at_the_end_of_the_current_turn():
    """"Allo scadere del tempo ... VINCE IL PIÙ RICCO": the turn in progress is played out
    (a double still rolls again), then the richest wins."""
    s = scenario(2, edition="editrice-giochi", options=TIMED, owners={39: 1}, pos={0: 0})
    s, _ = step(s, seat0=TimeUp(), seat1=TimeUp())
    s, _ = roll(s, 2, 2)  # a double: the same turn goes on
    assert pending(s).kind == "roll" and s.current == 0
    s, ev = roll(s, 4, 2)  # 4 -> 10, just visiting: the turn ends
    assert pending(s).terminal and s.winner == 1 and GameWon(1) in ev
    assert standings(s)[0][0] == 1 and legal_actions(s, 0) == []


def test_editrice_counts_buildings_and_mortgaged_property_at_half():
    """"quelli ipotecati valgono la metà. Anche le case e gli alberghi devono essere calcolati
    alla metà del loro valore di acquisto.\""""
    s = scenario(2, edition="editrice-giochi", owners={1: 0, 3: 0, 12: 0},
                 levels={1: 1, 3: 2}, mortgaged=[12])
    # cash + 150 + 150 + (375 - 188) + half of 3 houses at 125
    assert net_worth(s, 0) == 8750 + 300 + 187 + (375 + 1) // 2


def test_fabrianopoli_counts_buildings_at_full_value():
    """"aggiungendo i valori dei terreni, stazioni, imprese, delle case e degli alberghi
    (naturalmente i terreni ipotecati valgono la metà)\""""
    s = scenario(2, edition="fabrianopoli", owners={1: 0, 3: 0, 12: 0}, levels={1: 1, 3: 2})
    s, _ = step(s, seat0=Mortgage(12))
    assert net_worth(s, 0) == 1500 + 75 + 60 + 60 + (150 - 75) + 3 * 50


def test_timed_winner_ties_go_to_more_cash():
    """Rule choice (docs/RULES.md): equal net worth, more cash wins."""
    s = scenario(2, edition="fabrianopoli", options=TIMED, owners={1: 0},
                 cash={0: 1440, 1: 1500})
    s, _ = step(s, seat0=TimeUp(), seat1=TimeUp())
    s, _ = roll(s, 4, 6)  # 0 -> 10, just visiting
    assert pending(s).terminal and s.winner == 1  # 1440 + 60 = 1500 each, seat 1 has more cash
    assert RollDice() not in legal_actions(s, 0)


def test_standings_of_a_timed_game_follow_its_end_rule():
    """"Allo scadere del tempo, i giocatori conteranno le proprie banconote aggiungendo i valori
    dei terreni ... VINCE IL PIÙ RICCO" (monopoli-editrice-giochi.txt): the players still in
    rank by net worth, ties by cash, then turn order after the player whose turn ended (seat
    0: so 2 before 0); the bankrupt seat comes last (issue 12, item 5)."""
    from engine.actions import DeclareBankruptcy
    s = scenario(4, edition="editrice-giochi", options=TIMED, current=3, owners={39: 1},
                 pos={3: 35}, cash={3: 50})
    s, _ = roll(s, 1, 2)  # 38 Tassa di lusso (€250): seat 3 cannot pay
    s, _ = step(s, seat3=DeclareBankruptcy())
    s, _ = step(s, seat0=TimeUp(), seat1=TimeUp(), seat2=TimeUp())
    s, _ = roll(s, 4, 6)  # seat 0: 0 -> 10, the turn ends, so does the game
    assert pending(s).terminal and s.winner == 1
    assert net_worth(s, 0) == net_worth(s, 2) and s.cash[0] == s.cash[2]
    assert [seat for seat, _ in standings(s)] == [1, 2, 0, 3]
