"""What a cheating bidder saves at auction, with and without sealed decisions (issue 10,
protocol.md §C13). Engine only, in process: figures, nothing asserted.

Seeded bot games (classico, 3 and 4 seats, all seats ``engine.bots`` "default"); in each game
one seat (seed mod seats) bids by a cheat's rule in every property auction round where it still
bids, with the bot's own valuation (``engine.bots._decide.auction_top``: it bids only while the
bot would, never above the bot's ceiling):

* ``honest``: the bot's own bid (the baseline);
* ``minimum``: always the minimum bid (``engine.rules.auction.min_bid``);
* ``patient``: waits until it holds the other seats' messages of the round, then bids the best
  of their bids + the minimum raise (or the minimum if nobody bid; the minimum, to stay in, when
  it cannot beat them). Without sealing it holds their inputs; with sealing (the rows marked
  "sealed"; every cheat is run both ways) it holds their §C13 commitments (``p2p.sealed.SealedDecisions``: 32
  salted bytes), so it finds no bid to beat, and the engine applies the opened inputs.

What it prints (issue 10, "How it is checked": does cheating buy the same property cheaper?):

1. Plain share: per strategy, the price paid as a share of the printed price over the property
   auctions (not debtor sales, not buildings) won by the swapped seat and by the other seats,
   with the standard error. Each side's own lots: a cheat that wins only the lots nobody else
   wanted shows a lower share without paying less for anything, so this is not the verdict.
2. Same lot (the counterfactual): at every property auction the swapped seat takes part in, the
   state is copied (``State.copy``) and that auction alone is played to its end with the seat's
   strategy swapped (cheat <-> honest bot), same opponents, same dice (a tie roll-off draws the
   beacon the real game would draw next). Side (a): the cheats' games, side (b): the honest
   bot's games. Lots both strategies win: cheat share, honest share, paired difference;
   lots only one of them wins, with what it paid.
3. Per game, paired by seed: property lots the seat won at auction and games it won, each
   strategy against the honest bot in the same seat.
4. The verdict line: "neither cheat pays less than the honest bot, within noise" holds when on
   both sides the paired difference cheat − honest has mean + 2 standard errors >= 0.

    /work/venv/bin/python bench/bench_auction.py                 # 3 and 4 seats, 100 seeds each
    /work/venv/bin/python bench/bench_auction.py --seeds 100 --seats 3 4
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.environ.get("LANOPOLI_ROOT") or str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from engine import decode_action, encode_action, new_game, pending  # noqa: E402
from engine.actions import Bid, PassBid  # noqa: E402
from engine.bots import choose_all  # noqa: E402
from engine.bots._decide import auction_top  # noqa: E402
from engine.bots._profile import scaled  # noqa: E402
from engine.bots._value import static  # noqa: E402
from engine.events import AuctionEnded, AuctionStarted  # noqa: E402
from engine.rules.auction import min_bid  # noqa: E402
from engine.state import LOT_PROPERTY, P_AUCTION, P_OVER  # noqa: E402
from p2p.sealed import COMMIT, OPEN, SealedDecisions, commitment  # noqa: E402
from _inplace import play_inplace  # noqa: E402 - bench/, the script's own folder

MODES = ("honest", "minimum", "patient")
MAX_STEPS = 60_000
GID = b"bench-auction\x00\x00\x00"


def _bids_seen(held: list, me: int) -> list[int]:
    """Bid amounts in the other seats' inputs we hold (encoded actions; a commitment is bytes
    and shows nothing)."""
    out = []
    for i, x in enumerate(held):
        if i != me and type(x) is list:
            a = decode_action(x)
            if type(a) is Bid:
                out.append(a.amount)
    return out


def cheat(s, seat: int, mode: str, held: list, prof) -> object:
    """The cheating seat's input in an auction round (module docstring); ``held``: the other
    seats' step inputs it holds when it chooses (encoded; None where it holds nothing)."""
    top, _ = auction_top(s, static(s), prof, seat)
    low = min_bid(s)
    if top < low:
        return PassBid()
    if mode == "minimum":
        return Bid(low)
    seen = _bids_seen(held, seat)
    if seen:
        beat = max(seen) + s.ed.auction_min_raise
        return Bid(beat) if beat <= top else Bid(low)
    return Bid(low)


def _round(s, names: list, me: int, mode: str, parts: list | None, k: int, prof) -> tuple[list, int, bool]:
    """The inputs of one auction step with seat ``me`` bidding by ``mode`` (the others: the
    bot). ``parts``: the seats' ``SealedDecisions`` when sealed (§C13), else None; ``k`` the
    next sealed step number. Returns (inputs the engine applies, next k, whether the seat held
    another seat's bid when it chose)."""
    inputs = choose_all(s, names)
    if mode == "honest" or not (s.auc_in[me] and s.auc_bidder != me):
        return inputs, k, False
    enc = [None if a is None else encode_action(a) for a in inputs]
    two = len(pending(s).actors) >= 2  # a sealed round (§C13.1)
    if parts is None or not two:
        held = enc  # plain lockstep: the patient seat waits for the others' STEPs
    else:
        held = _commit_round(parts, k, s, enc, me)
    peeked = mode == "patient" and bool(_bids_seen(held, me))
    inputs[me] = cheat(s, me, mode, held, prof)
    if parts is not None and two:
        inputs = _open_round(parts, k, inputs, me, s)
        k += 2
    return inputs, k, peeked


def _fork(s, seed: int, chances: int, me: int, mode: str, sealed: bool, k: int, prof) -> tuple[int, int]:
    """The counterfactual of one lot: a copy of the state at the opening of a property auction,
    played to that auction's end with seat ``me`` bidding by ``mode`` instead, the other seats
    the same bots, the same dice (the beacon numbering goes on from the real game's, so a tie
    roll-off throws what the real game would throw). Returns (winner, price); winner −1 when
    nobody bid."""
    s = s.copy()
    names = ["default"] * s.n
    parts = [SealedDecisions(GID, i) for i in range(s.n)] if sealed else None
    sq = s.auc_sq

    def decide(s) -> list:
        nonlocal k
        inputs, k, _ = _round(s, names, me, mode, parts, k, prof)
        return inputs

    for _, ev in play_inplace(s, seed, decide, MAX_STEPS, first_chance=chances):
        for e in ev:
            if type(e) is AuctionEnded and e.square == sq:
                return e.winner, e.amount
    raise RuntimeError("auction fork did not end")


def play(seats: int, seed: int, mode: str, sealed: bool, alts: tuple = ()) -> dict:
    """One game with seat ``seed % seats`` bidding by ``mode``; returns the auction figures of
    that seat and of the honest seats, the game's winner, and per ``alts`` entry
    ``(mode, sealed)`` the counterfactual of every property auction the seat took part in:
    ``[price, (winner, paid) here, (winner, paid) with the seat bidding by the alt]``."""
    s = new_game("classico", seats)
    prof = scaled("default", s.ed.go_salary)
    names = ["default"] * seats
    me = seed % seats
    parts = [SealedDecisions(GID, i) for i in range(seats)] if sealed else None
    won: dict[str, list[float]] = {"cheat": [], "honest": []}
    over: dict[str, list[float]] = {"cheat": [], "honest": []}
    clear: dict[str, list[float]] = {"cheat": [], "honest": []}
    lots: dict[tuple, list] = {a: [] for a in alts}
    open_lots: dict[tuple, tuple] = {}
    tops = None
    rounds = peeks = k = 0

    def decide(s) -> list:
        nonlocal rounds, peeks, k
        if s.phase == P_AUCTION:
            rounds += 1
        inputs, k, peeked = _round(s, names, me, mode, parts, k, prof)
        peeks += peeked
        return inputs

    for chances, ev in play_inplace(s, seed, decide, MAX_STEPS):
        for e in ev:
            if type(e) is AuctionStarted:
                tops = _ceilings(s, prof) if e.square >= 0 and e.kind == "property" else None
                if (tops is not None and s.phase == P_AUCTION and s.auc_sq == e.square
                        and s.owner[e.square] < 0 and s.auc_in[me]):
                    open_lots = {a: _fork(s, seed, chances, me, a[0], a[1], k, prof) for a in alts}
            elif type(e) is AuctionEnded and tops is not None and e.winner >= 0 and e.square >= 0:
                price = s.tb.price[e.square]
                who = "cheat" if e.winner == me else "honest"
                rest = sorted((t for i, t in enumerate(tops) if i != e.winner), reverse=True)
                # An ascending auction with €1 raises ends at the best rival ceiling + €1.
                fair = max(rest[0] + 1 if rest else 0, s.ed.auction_open)
                won[who].append(e.amount / price)
                over[who].append((e.amount - fair) / price)
                if not rest or tops[e.winner] > rest[0]:
                    clear[who].append(e.amount / price)
            if type(e) is AuctionEnded and e.square >= 0 and open_lots:
                for a, alt in open_lots.items():
                    lots[a].append([s.tb.price[e.square], (e.winner, e.amount), alt])
                open_lots = {}
    return {"won": won, "over": over, "clear": clear, "rounds": rounds, "peeks": peeks,
            "finished": s.phase == P_OVER, "me": me, "winner": s.winner if s.phase == P_OVER else -1,
            "lots": lots}


def _ceilings(s, prof) -> list[int]:
    """Every seat's ceiling (``auction_top``, default profile) for the auction that just
    opened; −1 for seats not in it."""
    st = static(s)
    return [auction_top(s, st, prof, i)[0] if s.auc_in[i] else -1 for i in range(s.n)]


def _commit_round(parts: list, k: int, s, enc: list, me: int) -> list:
    """Commit step k of §C13 for the honest seats: what the cheating seat holds of theirs when
    it must commit (their commitments). The cheat commits in ``_open_round`` once it chose."""
    held: list = [None] * len(parts)
    for i, p in enumerate(parts):
        assert p.begin(k, engine, s) == COMMIT
        if i != me:
            held[i] = p.seal(enc[i])
    return held


def _open_round(parts: list, k: int, inputs: list, me: int, s) -> list:
    """The cheat commits to its chosen input; every seat keeps the commitments, opens at step
    k+1, and the opened inputs (checked against the commitments) are what the engine applies."""
    x = inputs[me]
    parts[me].seal(None if x is None else encode_action(x))
    commits = [commitment(GID, k, i, *p.own()[1:]) for i, p in enumerate(parts)]
    openings = []
    for p in parts:
        p.committed(k, commits, [None] * len(parts))
        assert p.begin(k + 1, engine, s) == OPEN
        openings.append(p.opening())
    r = parts[0].open(k + 1, openings, [True] * len(parts))
    assert r.fault is None
    return [None if x is None else decode_action(x) for x in r.inputs]


def _mean_se(xs: list[float]) -> tuple[float, float]:
    if not xs:
        return float("nan"), float("nan")
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, float("nan")
    var = sum((x - m) ** 2 for x in xs) / (len(xs) - 1)
    return m, math.sqrt(var / len(xs))


CHEATS = tuple((m, sealed) for m in MODES[1:] for sealed in (False, True))
"""The cheating strategies compared with the honest bot: (mode, sealed)."""


def _name(m: tuple) -> str:
    return m[0] + (" sealed" if m[1] else "")


def _fmt(xs: list[float]) -> str:
    m, se = _mean_se(xs)
    return f"{m:>7.1%} ±{se:>5.1%}" if xs else f"{'-':>14}"


def _same_lot(lots: list, me: int, cheat_first: bool) -> dict[str, list]:
    """Per-lot pairs of one game's counterfactuals (``play``'s ``lots``) for the seat ``me``.
    With ``cheat_first`` the real game is the cheat's and the alt the honest bot, else the
    reverse. Returns ``both``: (cheat share, honest share) of the printed price for the lots
    both strategies win; ``cheat``/``honest``: the share paid on the lots only that strategy
    wins (the other loses it to a rival or nobody bids)."""
    out: dict[str, list] = {"both": [], "cheat": [], "honest": []}
    for price, (w, paid), (aw, apaid) in lots:
        c, h = ((w, paid), (aw, apaid)) if cheat_first else ((aw, apaid), (w, paid))
        if c[0] == me and h[0] == me:
            out["both"].append((c[1] / price, h[1] / price))
        elif c[0] == me:
            out["cheat"].append(c[1] / price)
        elif h[0] == me:
            out["honest"].append(h[1] / price)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=100, help="seeded games per seat count and mode")
    ap.add_argument("--seats", type=int, nargs="+", default=[3, 4])
    args = ap.parse_args()
    t0 = time.perf_counter()
    honest: list[dict] = []
    games: dict[tuple, list[dict]] = {m: [] for m in CHEATS}
    for seats in args.seats:
        for seed in range(args.seeds):
            honest.append(play(seats, seed, "honest", False, CHEATS))
            for m in CHEATS:
                games[m].append(play(seats, seed, m[0], m[1], (("honest", False),)))
    n = len(honest)
    unfinished = sum(not r["finished"] for rows in [honest, *games.values()] for r in rows)
    print(f"classico, seats {args.seats}, {args.seeds} seeds each ({n} games per strategy), one "
          f"strategy-swapped seat per game (seed mod seats), the other seats the default bot; "
          f"{unfinished} games unfinished after {MAX_STEPS} steps; {time.perf_counter() - t0:.0f} s")
    _plain(honest, games)
    bad = _same_lots(honest, games)
    _per_game(honest, games)
    print("\nneither cheat pays less than the honest bot, within noise (same lots, cheat − honest "
          "mean + 2 SE >= 0 on sides a and b, every cheat): " + ("yes" if not bad else "NO: " + ", ".join(bad)))


def _plain(honest: list[dict], games: dict) -> None:
    """Section 1 (module docstring)."""
    n = len(honest)
    print("\n1. PLAIN SHARE (what each side paid over the lots IT won — different lots per side, "
          "so not a like-for-like comparison): 'paid' = price / printed price (mean ± standard error, "
          "count); 'clear' = the same over the lots its ceiling was strictly the highest; 'over' = "
          "mean (price − fair) / printed, fair = best rival ceiling + €1; 'peeks' = rounds in which "
          "the swapped seat held another seat's bid before it chose")
    head = f"{'paid':>16}{'(n)':>7}{'clear':>15}{'(n)':>7}{'over':>7}"
    print(f"{'':<16}{'swapped seat':^52}{'other seats':^52}")
    print(f"{'strategy':<16}{head}{head}{'rounds/game':>12}{'peeks':>7}")
    for name, rows in [("honest", honest)] + [(_name(m), games[m]) for m in CHEATS]:
        cols = []
        for who in ("cheat", "honest"):
            won = [x for r in rows for x in r["won"][who]]
            clear = [x for r in rows for x in r["clear"][who]]
            o, _ = _mean_se([x for r in rows for x in r["over"][who]])
            cols.append(f"{_fmt(won)} ({len(won):>4}) {_fmt(clear)[1:]} ({len(clear):>4}){o:>+7.1%}")
        print(f"{name:<16}{cols[0]}{cols[1]}{sum(r['rounds'] for r in rows) / n:>12.1f}"
              f"{sum(r['peeks'] for r in rows):>7}")


def _same_lots(honest: list[dict], games: dict) -> list[str]:
    """Section 2 (module docstring); returns the cheats that pay less than the honest bot on
    the same lots beyond noise (paired difference mean + 2 SE < 0 on side a or b)."""
    print("\n2. SAME LOT (counterfactual): at every property auction the swapped seat takes part in, "
          "the state is copied and the auction alone is replayed with that seat's strategy swapped "
          "(honest <-> cheat; same seat, same opponents, same dice). (a) lots the cheat won in its "
          "games, (b) lots the honest bot won in its games. 'both' = lots both strategies win: "
          "cheat share, honest share, and the paired difference cheat − honest (share of printed "
          "price, mean ± SE); 'cheat only' / 'honest only' = lots one strategy wins and the other "
          "does not (count, share paid by the one that wins)")
    print(f"{'cheat':<16}{'side':<4}{'both':>6}{'cheat paid':>16}{'honest paid':>16}{'cheat − honest':>16}"
          f"{'cheat only':>20}{'honest only':>20}")
    bad = []
    for m in CHEATS:
        diffs = []
        for side, rows, first in (("a", games[m], True), ("b", honest, False)):
            x: dict[str, list] = {"both": [], "cheat": [], "honest": []}
            for r in rows:
                for k, v in _same_lot(r["lots"][("honest", False) if first else m], r["me"], first).items():
                    x[k] += v
            both = x["both"]
            d = [c - h for c, h in both]
            diffs.append(_mean_se(d))
            print(f"{_name(m) if first else '':<16}{side:<4}{len(both):>6}{_fmt([c for c, _ in both]):>16}"
                  f"{_fmt([h for _, h in both]):>16}{_fmt(d):>16}"
                  f"{len(x['cheat']):>5} {_fmt(x['cheat'])}{len(x['honest']):>5} {_fmt(x['honest'])}")
        if any(dm + 2 * (se if se == se else 0) < 0 for dm, se in diffs):  # se is NaN below 2 lots
            bad.append(_name(m))
    return bad


def _wins(rows: list[dict]) -> tuple[list[int], list[float]]:
    """Per game: property lots the swapped seat won at auction, and 1.0 if it won the game."""
    return [len(r["won"]["cheat"]) for r in rows], [float(r["winner"] == r["me"]) for r in rows]


def _per_game(honest: list[dict], games: dict) -> None:
    """Section 3 (module docstring)."""
    print("\n3. LOTS AND WINS PER GAME (whole games: the swapped seat's strategy, everything else equal; "
          "paired by seed): property lots the seat won at auction per game and games it won (mean ± SE; "
          "difference cheat − honest, paired by seed)")
    h_lots, h_wins = _wins(honest)
    print(f"{'strategy':<16}{'lots/game':>16}{'− honest':>16}{'win rate':>16}{'− honest':>16}")
    print(f"{'honest':<16}{_fmt1(h_lots):>16}{'':>16}{_fmt(h_wins):>16}{'':>16}")
    for m in CHEATS:
        lots, wins = _wins(games[m])
        print(f"{_name(m):<16}{_fmt1(lots):>16}{_fmt1([a - b for a, b in zip(lots, h_lots)], '+'):>16}"
              f"{_fmt(wins):>16}{_fmt([a - b for a, b in zip(wins, h_wins)]):>16}")


def _fmt1(xs: list[float], sign: str = "") -> str:
    m, se = _mean_se(xs)
    return f"{m:>{sign}6.2f} ±{se:>4.2f}"


if __name__ == "__main__":
    main()
