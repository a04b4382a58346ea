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

from ..actions import AcceptTrade, ProposeTrade, RejectTrade
from ..editions import K_STREET
from ..errors import IllegalAction
from ..rules.trade import check_accept
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
    try:  # the engine's own test: the proposer must also pay its fees (offer_is_valid does not see them)
        check_accept(s, seat, p, ())
    except IllegalAction:
        return RejectTrade(p)  # an accept the engine refuses leaves the offer open: asked again for ever
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

    The candidates and both sides' gains come from :func:`_candidates` (no cash involved);
    the cash split and the fee checks follow.
    """
    cands = _candidates(s, st, prof, seat)
    if not cands:
        return None
    out = s.out
    cash = s.cash
    best = None
    best_score = 0
    for q, gets, gives, g_me, g_q, fee_gets, fee_gives in cands:
        if out[q]:
            continue
        c = _split(s, prof, seat, q, g_me, g_q)
        if c is None:
            continue
        # The receiver of mortgaged streets pays the fee; keep it payable.
        if cash[seat] - max(c, 0) < fee_gets or cash[q] - max(-c, 0) < fee_gives:
            continue
        score = g_me + g_q
        if score > best_score:
            best_score = score
            best = ProposeTrade(q, gives, gets, max(c, 0), max(-c, 0), (), (), ())
    return best


def _part_value(s, squares: tuple[int, ...]) -> tuple[int, int]:
    """``(V, F)`` of ``squares`` (see :func:`_candidates`): their value in euro (price, less
    the lift cost when mortgaged) and the 10 % fees a receiver of the mortgaged ones pays."""
    mort = s.mort
    tb = s.tb
    v = f = 0
    for sq in squares:
        if mort[sq]:
            v += tb.price[sq] - tb.lift[sq]
            f += tb.fee[sq]
        else:
            v += tb.price[sq]
    return v, f


def _candidates(s, st: Static, prof, seat: int) -> list[tuple]:
    """The candidate trades of :func:`propose`, in its order, that are tradeable now and whose
    joint gain reaches ``2 * prof.margin``: ``(partner, gets sorted, gives sorted, gain of seat,
    gain of partner, fee seat pays, fee partner pays)``, euro. A function of the board
    (owner, level, mort lists) and the edition; bankrupt partners are left in (propose skips
    them).

    Every candidate moves whole parts of split colour sets (``split_sets``: each street of the
    set belongs to ``seat`` or to ``q``), so :func:`trade_gain` reduces to sums over those
    parts: with ``V`` the value of a part (price, less the lift cost when mortgaged), ``F`` its
    mortgage fees, ``P`` a set's price and ``r = prof.rival_pct``, taking ``rest`` (q's part of
    set i) and giving ``ours`` (seat's part of set j, q holding the rest of j) is worth
    ``V(rest) + P_i - F(rest) - V(ours) - P_j*r//100`` to seat and
    ``V(ours) + P_j - F(ours) - V(rest) - P_i*r//100`` to q (either side may be empty: its
    terms drop out). tests/engine/test_bots.py checks these against trade_gain."""
    mine = split_sets(s, st, seat)
    if not mine:
        return []
    r = prof.rival_pct
    set_price = st.set_price
    # Per split set: (set, partner, ours, rest, ok, V(ours), F(ours), V(rest), F(rest)); "ok":
    # both parts tradeable by their holders now.
    # Both parts of a split set are tradeable by their holders exactly when the set has no
    # buildings (_tradeable: each holder owns its part, by construction of split_sets).
    level = s.level
    groups = st.groups
    parts = []
    for gi, q, ours, rest in mine:
        ok = True
        for m in groups[gi]:
            if level[m]:
                ok = False
                break
        parts.append((gi, q, ours, rest, ok) + _part_value(s, ours) + _part_value(s, rest))
    least = 2 * prof.margin
    out: list[tuple] = []
    for gi, q, ours, rest, ok, vo, fo, vr, fr in parts:
        # rest completes my set gi; options for what I give: nothing, or a set of q's I complete.
        if not ok:
            continue
        g_me = vr + set_price[gi] - fr
        g_q = -vr - set_price[gi] * r // 100
        if g_me + g_q >= least:
            out.append((q, tuple(sorted(rest)), (), g_me, g_q, fr, 0))
        for gj, q2, ours2, rest2, ok2, vo2, fo2, vr2, fr2 in parts:
            if q2 == q and gj != gi and ok2:
                g_me2 = g_me - vo2 - set_price[gj] * r // 100
                g_q2 = vo2 + set_price[gj] - fo2 - vr - set_price[gi] * r // 100
                if g_me2 + g_q2 >= least:
                    out.append((q, tuple(sorted(rest)), tuple(sorted(ours2)), g_me2, g_q2, fr,
                                fo2))
    for gj, q, ours, rest, ok, vo, fo, vr, fr in parts:
        # Sell q what completes its set (q owns "rest" of set gj, I own "ours").
        if ok:
            g_me = -vo - set_price[gj] * r // 100
            g_q = vo + set_price[gj] - fo
            if g_me + g_q >= least:
                out.append((q, (), tuple(sorted(ours)), g_me, g_q, 0, fo))
    return out
