"""Trades between bots: propose swaps that complete colour sets, answer offers by their value.

Rulebook ("COME FARE AFFARI CON GLI ALTRI GIOCATORI"): properties, cash and jail cards change
hands at any time for any agreed price; a street cannot be traded while its colour set has
buildings; a mortgaged property received pays the 10 % fee or is lifted at once.

Why bots trade: without trades a game of bots rarely sees a complete colour set, nobody builds,
and the game never ends. The proposer looks for a colour set it can complete by taking the
missing streets from the one player who holds them, gives back streets that complete a set of
that player when it can (both sides build, so the game ends), and settles the difference in
cash so that both sides gain about the same (under its own valuation model, which is the one
the default bots use to answer). The partner accepts when the trade is worth at least its
margin to it, counting a set it hands a rival against the trade.
"""
from __future__ import annotations

from engine.actions import AcceptTrade, ProposeTrade, RejectTrade
from engine.editions import K_STREET
from ._value import Static, new_sets, split_sets, unit_value

__all__ = ["propose", "answer", "offer_is_valid", "own_offer", "trade_gain"]

JAIL_CARD_VALUE = 30
"""Classico euro a bot counts for a "Uscite gratis di prigione" card in a trade."""


def trade_gain(s, st: Static, prof, me: int, other: int, gets: tuple[int, ...],
               gives: tuple[int, ...], cash_in: int, before: dict | None = None) -> int:
    """Gain in euro for ``me`` of receiving ``gets`` and ``cash_in`` (negative: paying) from
    ``other`` and handing over ``gives``: change of :func:`holdings_value`, less the 10 % fee on
    mortgaged properties received, less ``prof.rival_pct`` of the sets ``other`` completes.
    ``before``: optional cache ``{(seat, unit): unit_value under s.owner}`` shared by the calls
    of one decision (the state does not change meanwhile)."""
    owner = s.owner
    after = owner[:]
    units = []
    unit_of = st.unit_of
    for sq in gets:
        after[sq] = me
        if unit_of[sq] not in units:
            units.append(unit_of[sq])
    for sq in gives:
        after[sq] = other
        if unit_of[sq] not in units:
            units.append(unit_of[sq])
    gain = cash_in
    for u in units:
        if before is None:
            was = unit_value(s, st, owner, me, u)
        else:
            was = before.get((me, u))
            if was is None:
                was = before[me, u] = unit_value(s, st, owner, me, u)
        gain += unit_value(s, st, after, me, u) - was
    fee = s.tb.fee
    for sq in gets:
        if s.mort[sq]:
            gain -= fee[sq]
    gain -= new_sets(st, owner, after, other, units) * prof.rival_pct // 100
    return gain


def _tradeable(s, sq: int, holder: int) -> bool:
    """``holder`` owns ``sq`` and its colour set has no buildings (rulebook: sell them first)."""
    if not 0 <= sq < s.tb.nsq or s.owner[sq] != holder:
        return False
    if s.tb.kind[sq] == K_STREET:
        level = s.level
        for m in s.tb.group_of[sq]:
            if level[m]:
                return False
    return True


def _holds_cards(s, seat: int, decks: tuple[int, ...] | list[int]) -> bool:
    held = [k >> 8 for k in s.held[seat]]
    for d in decks:
        if d in held:
            held.remove(d)
        else:
            return False
    return True


def offer_is_valid(s, o: list) -> bool:
    """True if open offer ``o`` (state layout ``[proposer, partner, give_squares, get_squares,
    give_cash, get_cash, give_cards, get_cards, lift]``) could be carried out now."""
    p, q = o[0], o[1]
    if s.out[p] or s.out[q]:
        return False
    if not all(_tradeable(s, sq, p) for sq in o[2]):
        return False
    if not all(_tradeable(s, sq, q) for sq in o[3]):
        return False
    if s.cash[p] < o[4] or s.cash[q] < o[5]:
        return False
    return _holds_cards(s, p, o[6]) and _holds_cards(s, q, o[7])


def own_offer(s, seat: int) -> list | None:
    """The open offer ``seat`` made (state layout), or None."""
    for o in s.offers:
        if o[0] == seat:
            return o
    return None


def answer(s, st: Static, prof, seat: int, o: list):
    """AcceptTrade or RejectTrade for the open offer ``o`` addressed to ``seat``."""
    p = o[0]
    if not offer_is_valid(s, o):
        return RejectTrade(p)
    gets, gives = tuple(o[2]), tuple(o[3])
    cash_in = o[4] - o[5]
    gain = trade_gain(s, st, prof, seat, p, gets, gives, cash_in)
    gain += JAIL_CARD_VALUE * s.ed.go_salary // 200 * (len(o[6]) - len(o[7]))
    fees = sum(s.tb.fee[sq] for sq in gets if s.mort[sq])
    if gain < prof.margin or s.cash[seat] - o[5] - fees < 0:
        return RejectTrade(p)
    return AcceptTrade(p, ())


def _split(s, prof, me: int, q: int, g_me: int, g_q: int) -> int | None:
    """Cash ``me`` pays ``q`` (negative: receives) so both gain about the same, or None when
    no payment leaves both sides at least ``prof.margin`` within what they can pay."""
    if g_me + g_q < 2 * prof.margin:
        return None
    c = (g_me - g_q) // 2
    if c > 0:
        c = min(c, s.cash[me] - prof.reserve // 2)
    elif c < 0:
        c = max(c, -(s.cash[q] - prof.reserve // 2))
    if g_me - c < prof.margin or g_q + c < prof.margin:
        return None
    return c


def propose(s, st: Static, prof, seat: int) -> ProposeTrade | None:
    """The best trade ``seat`` can offer now (largest joint gain), or None.

    Candidates: for every colour set where ``seat`` owns some streets and one other player all
    the rest, take those; give nothing, or the streets of ``seat`` that complete a set of the
    partner in the same way. Also: sell the partner the streets that complete its set. Ties go
    to the first candidate in board order, so the choice is a function of the state.
    """
    out = s.out
    best = None
    best_score = 0
    before: dict = {}  # unit values under s.owner, shared by every candidate (trade_gain)
    # mine: (set, partner, our streets, partner's streets) for every colour set split between
    # exactly two players, seat owning at least one street and the partner (still in) all the
    # rest; the split itself is memoised on the owner list (_value.split_sets).
    mine = [x for x in split_sets(s, st, seat) if not out[x[1]]]
    if not mine:
        return None
    for gi, q, ours, rest in mine:
        # rest completes my set gi; options for what I give: nothing, or a set of q's I complete.
        gives_options: list[tuple[int, ...]] = [()]
        for gj, q2, ours2, rest2 in mine:
            if q2 == q and gj != gi:
                gives_options.append(ours2)
        for gives in gives_options:
            best, best_score = _consider(s, st, prof, seat, q, rest, gives, best, best_score,
                                         before)
    for gj, q, ours, rest in mine:
        # Sell q what completes its set (q owns "rest" of set gj, I own "ours").
        best, best_score = _consider(s, st, prof, seat, q, (), ours, best, best_score, before)
    return best


def _consider(s, st, prof, seat, q, gets, gives, best, best_score, before):
    """One candidate of :func:`propose` (``seat`` gets ``gets`` from ``q`` and gives
    ``gives``): the new ``(best, best_score)``; ``before``: trade_gain's cache."""
    for sq in gets:
        if not _tradeable(s, sq, q):
            return best, best_score
    for sq in gives:
        if not _tradeable(s, sq, seat):
            return best, best_score
    g_me = trade_gain(s, st, prof, seat, q, gets, gives, 0, before)
    g_q = trade_gain(s, st, prof, q, seat, gives, gets, 0, before)
    c = _split(s, prof, seat, q, g_me, g_q)
    if c is None:
        return best, best_score
    # The receiver of mortgaged streets pays the fee; keep it payable.
    fee = s.tb.fee
    if s.cash[seat] - max(c, 0) < sum(fee[sq] for sq in gets if s.mort[sq]):
        return best, best_score
    if s.cash[q] - max(-c, 0) < sum(fee[sq] for sq in gives if s.mort[sq]):
        return best, best_score
    score = g_me + g_q
    if score > best_score:
        best_score = score
        best = ProposeTrade(q, tuple(sorted(gives)), tuple(sorted(gets)), max(c, 0), max(-c, 0),
                            (), (), ())
    return best, best_score
