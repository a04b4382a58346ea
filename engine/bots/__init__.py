"""Bots: deterministic players that are part of the engine (DESIGN.md §1).

``choose(state, seat, bot)`` is a pure function of the state: no ``random``, no clock, no
``hash()`` or set iteration, and no memory between calls that could change an answer (the
memos of ``_value`` only save work: they are keyed on the board's lists compared by value, so
an answer is the same whatever they hold). Every peer that plays a seat whose player left
computes the same action without any message, and a replay of a game log gives the same bot
moves.

What a bot does, in order of priority, at every decision step (one action per step):

1. claims rent owed to it at once ("rent must be claimed" — a claim lapses when the next
   player's dice are rolled, rulebook "Se invece non lo fa prima che il giocatore successivo
   abbia lanciato i dadi");
2. answers a trade offered to it: accepts when its gain is at least its margin, else rejects;
3. in an auction it still bids in: bids in jumps up to a ceiling (price, set bonuses, cash
   reserve), else passes (this comes before 1 and 2: any other input would leave the auction);
4. when it owes money: mortgages, then sells buildings, then mortgages sets, and declares
   bankruptcy only when selling everything could not pay (the engine's own test);
5. after a bankrupt's mortgaged estate comes to it: lifts what it can afford;
6. on its own turn, before rolling: lifts a mortgage when rich, builds evenly on complete sets
   above its reserve, offers at most one trade every ``trade_every`` own turns (the turn
   counter decides, so a rejected offer is not repeated at once), leaves jail early while
   properties are still for sale, then rolls;
7. when it lands on an unowned property: buys it above the reserve, or to complete or block
   a set; else declines and it is auctioned;
8. "pay a fine or draw a card": pays when the fine leaves its reserve, else draws.

Bots never send TimeUp (the players' clock decides that) and do not use a debtor's own auction
(AuctionProperty): mortgaging and selling always come first.

Otherwise it returns None ("nothing"). Bots never look ahead: the hot path reads a few list
entries; trade search runs once per trading turn.
"""
from __future__ import annotations

from ._choose import _choose, _choose_all, choose, choose_all
from ._profile import BOTS, Profile

__all__ = ["choose", "choose_all", "BOTS", "Profile", "play_game", "GameResult"]

# Imported last: engine.bots.play calls choose.
from .play import GameResult, play_game  # noqa: E402
