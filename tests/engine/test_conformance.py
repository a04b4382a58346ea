"""Conformance suite parametrised over every registered edition (STYLE.md §11): setup for every
seat count, data consistency, chance/decision contract, bots play every edition to the end."""
import pytest

from engine import (EDITIONS, apply_chance, decode_state, encode_state, is_terminal,
                    legal_actions, new_game, pending, standings, state_hash)
from engine.bots import play_game
from engine.editions import K_STATION, K_STREET, K_UTILITY

ALL = sorted(EDITIONS)


@pytest.mark.parametrize("edition", ALL)
def test_new_game_for_every_seat_count(edition):
    ed = EDITIONS[edition]
    assert ed.min_players == 2 and ed.max_players == (8 if edition == "classico" else 6)
    for n in range(ed.min_players, ed.max_players + 1):
        s = new_game(edition, n)
        p = pending(s)
        assert p.chance and p.kind == "first_player" and not p.terminal
        assert sum(s.cash) + s.bank == 0 and s.cash == [ed.start_for(n)[0]] * n
        assert all(legal_actions(s, i) == [] for i in range(n))  # chance step: no decisions
        assert decode_state(encode_state(s)) == s
    for n in (ed.min_players - 1, ed.max_players + 1):
        with pytest.raises(ValueError):
            new_game(edition, n)
    with pytest.raises(ValueError):
        new_game(edition, 2, {"no_such_option": True})


@pytest.mark.parametrize("edition", ALL)
def test_edition_data_is_consistent(edition):
    ed = EDITIONS[edition]
    tb = ed.tables
    for sq in tb.properties:
        assert tb.kind[sq] in (K_STREET, K_STATION, K_UTILITY)
        assert 0 < tb.price[sq] and 0 <= tb.mortgage[sq] <= tb.price[sq]
        assert tb.lift[sq] > tb.mortgage[sq] or tb.mortgage[sq] == 0  # niente: no mortgages
        if tb.kind[sq] == K_STREET:
            r = tb.rent[sq]
            assert len(r) == 7 and list(r[2:]) == sorted(r[2:]) and tb.house_cost[sq] > 0
    for d in ed.decks:
        assert len(d) >= 14 and all(c.text for c in d)
        for c in d:
            if c.kind == "pay_or_draw":
                assert 0 <= c.alt_deck < len(ed.decks)


@pytest.mark.parametrize("edition", ALL)
def test_first_chance_step_starts_a_turn(edition):
    s = new_game(edition, 3)
    s2, _ = apply_chance(s, bytes(32))
    assert s2 != s and not pending(s2).chance and pending(s2).actors == (s2.current,)
    assert state_hash(apply_chance(s, bytes(32))[0]) == state_hash(s2)  # deterministic


@pytest.mark.parametrize("edition", ALL)
@pytest.mark.parametrize("seats", [2, 4, 6])
def test_bots_play_every_edition_to_the_end(edition, seats):
    for seed in range(2):
        r = play_game(seats, seed, edition=edition, max_steps=60_000)
        assert r.finished and 0 <= r.winner < seats, r


@pytest.mark.parametrize("edition", [e for e in ALL if EDITIONS[e].timed_game])
def test_bots_finish_a_timed_game_when_time_is_up(edition):
    """Timed game: once TimeUp is applied the game ends at the end of the turn with a
    winner by net worth (engine.rules.timed)."""
    from engine.actions import TimeUp
    from engine.bots import choose
    from engine.game import chance_inplace, step_inplace
    from engine.rng import BeaconRng
    s = new_game(edition, 4, {"timed_minutes": 30})
    ev: list = []
    for k in range(3000):
        if is_terminal(s):
            break
        if pending(s).chance:
            chance_inplace(s, BeaconRng(k.to_bytes(32, "big")), ev)
        else:
            inputs = [choose(s, i) for i in range(4)]
            if k >= 60 and not s.time_up >> 3:  # seats 1-3 vote: a strict majority of 4
                inputs[1:] = [TimeUp()] * 3
            step_inplace(s, inputs, ev)
    assert is_terminal(s) and s.time_up and standings(s)[0][0] == s.winner
