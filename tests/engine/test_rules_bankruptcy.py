"""Raising money and bankruptcy (monopoly-classico-hasbro.txt, "AIUTO! NON RIESCO PIÙ A
PAGARE!")."""
import pytest

from engine import (IllegalAction, apply_action, is_terminal, legal_actions, pending, standings,
                    winner)
from engine.actions import ClaimRent, DeclareBankruptcy, Mortgage, SettleMortgages
from engine.events import DebtOpened
from engine.testing import roll, scenario, step


def _owes_rent(cash1, extra_owners=None, mortgaged=(), seats=2):
    owners = {39: 0, 37: 0}
    owners.update(extra_owners or {})
    s = scenario(seats, current=1, pos={1: 33}, cash={1: cash1}, owners=owners,
                 levels={37: 5, 39: 5}, mortgaged=mortgaged)
    s, _ = roll(s, 2, 4)  # 39 Parco della Vittoria with a hotel: 2000
    s, ev = step(s, seat0=ClaimRent(39, 1))
    return s, ev


def test_raise_money_then_pay():
    """"cercate di raggranellare un po' di contanti vendendo i vostri edifici alla Banca e/o
    ipotecando le vostre proprietà.\""""
    s, ev = _owes_rent(1900, extra_owners={31: 1, 32: 1})
    assert pending(s).kind == "raise_money" and pending(s).actors == (1,)
    assert DebtOpened(1, 0, 2000) in ev
    with pytest.raises(IllegalAction) as e:
        apply_action(s, 1, DeclareBankruptcy())
    assert e.value.code == "can_still_pay"
    s, _ = step(s, seat1=Mortgage(31))
    assert s.cash[1] == 2050 - 2000 and pending(s).kind != "raise_money"


def test_bankruptcy_to_player_hands_over_everything():
    """"Consegnategli tutte le vostre proprietà ipotecate e tutte le carte Uscite gratis di
    prigione"; the receiver lifts or pays 10 % ("mantenere l'ipoteca (pagando subito ... 10%")."""
    s, _ = _owes_rent(100, extra_owners={5: 1, 15: 1}, mortgaged=[5, 15], seats=3)
    s.held[1] = [4]
    s.decks[0].remove(4)
    assert DeclareBankruptcy() in legal_actions(s, 1)
    cash0 = s.cash[0]
    s, _ = step(s, seat1=DeclareBankruptcy())
    assert s.out[1] == 1 and s.owner[5] == 0 and s.owner[15] == 0 and s.held[0] == [4]
    assert s.cash[0] == cash0 + 100
    assert pending(s).kind == "mortgage_choice" and pending(s).actors == (0,)
    s, _ = step(s, seat0=SettleMortgages((5,)))
    assert s.mort[5] == 0 and s.mort[15] == 1 and s.cash[0] == cash0 + 100 - 110 - 10


def test_bankruptcy_to_bank_auctions_and_returns_cards():
    """"Restituite alla Banca tutte le vostre proprietà; eventuali ipoteche ... cancellate ...
    messe immediatamente all'asta, una alla volta. Rimettete eventuali carte Uscite gratis di
    prigione in fondo al mazzo\""""
    s = scenario(3, pos={0: 35}, cash={0: 50}, owners={5: 0, 15: 0}, mortgaged=[5, 15])
    s.held[0] = [4]
    s.decks[0].remove(4)
    s, _ = roll(s, 1, 2)  # 38 Tassa di lusso 100
    assert pending(s).kind == "raise_money"
    s, _ = step(s, seat0=DeclareBankruptcy())
    assert s.out[0] and s.decks[0][-1] == 4 and s.mort[5] == 0
    assert pending(s).kind == "auction_bid" and s.auc_sq == 5 and s.auc_queue == [15]
    s, _ = step(s)  # nobody bids on 5
    s, _ = step(s)  # nor on 15
    assert pending(s).kind == "roll" and s.current == 1


def test_last_player_wins():
    """"fino a quando resta un solo giocatore, che vince e viene proclamato monopolista!\""""
    s, _ = _owes_rent(10)
    s, _ = step(s, seat1=DeclareBankruptcy())
    assert is_terminal(s) and winner(s) == 0 and pending(s).terminal
    assert legal_actions(s, 0) == []


def test_bankrupt_on_third_jail_try_does_not_move_and_turn_passes():
    """Third try ("pagate b50 e usate il totale ... per avanzare") with no way to pay: the
    player goes bankrupt to the bank, the estate is auctioned, and the turn passes on."""
    s = scenario(3, pos={0: 10}, jail={0: 3}, cash={0: 10}, owners={5: 0}, mortgaged=[5])
    s, _ = roll(s, 1, 2)
    assert pending(s).kind == "raise_money"
    s, _ = step(s, seat0=DeclareBankruptcy())
    assert pending(s).kind == "auction_bid" and s.auc_sq == 5
    s, _ = step(s)
    assert pending(s).kind == "roll" and s.current == 1 and s.pos[0] == 10 and s.debts == []


def test_standings_rank_the_bankrupt_by_when_they_went_out():
    """"Vince la sfida l'ultimo giocatore rimasto in partita con del denaro dopo che tutti gli
    altri giocatori sono andati in bancarotta!" (monopoly-classico-hasbro.txt, "Come si
    vince"): the winner first, then the others by when they went out, the last out second —
    not by seat (issue 12, item 5). Seats go out 3, 0, 2 on Tassa di lusso (€100)."""
    s = scenario(4, current=3, pos={0: 35, 2: 35, 3: 35}, cash={0: 50, 2: 50, 3: 50})
    for seat in (3, 0, 1, 2):
        assert s.current == seat
        if seat == 1:
            s, _ = roll(s, 4, 6)  # 0 -> 10, just visiting
            continue
        s, _ = roll(s, 1, 2)  # 35 -> 38 Tassa di lusso: cannot pay
        s, _ = step(s, **{f"seat{seat}": DeclareBankruptcy()})
    assert is_terminal(s) and winner(s) == 1
    assert s.out == [2, 0, 3, 1]  # the k-th seat to go out
    assert [seat for seat, _ in standings(s)] == [1, 2, 0, 3]
    assert standings(s)[0][1] == s.cash[1] and [w for _, w in standings(s)[1:]] == [0, 0, 0]


def test_standings_of_a_stopped_game_put_players_still_in_first():
    """A game stopped before its end (a fault): players still in by net worth, then the
    bankrupt, last out first."""
    s = scenario(3, current=2, pos={2: 35}, cash={0: 900, 1: 1200, 2: 50})
    s, _ = roll(s, 1, 2)
    s, _ = step(s, seat2=DeclareBankruptcy())
    assert not is_terminal(s)
    assert standings(s) == [(1, 1200), (0, 900), (2, 0)]
