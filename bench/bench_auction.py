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
  it cannot beat them). Without sealing it holds their inputs; with sealing (``--sealed``, the
  default prints both) it holds their §C13 commitments (``p2p.sealed.SealedDecisions``: 32
  salted bytes), so it finds no bid to beat, and the engine applies the opened inputs.

Per mode: the price paid as a share of the printed price, averaged over the property auctions
(not debtor sales, not buildings) won by the cheating seat and over those won by the honest
seats of the same games, with the standard error, and the auction rounds per game (each a
lockstep step; two when sealed). Target (issue 10): neither cheat pays less than the honest
bot, within noise, when sealed.

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
from engine import chance_inplace, decode_action, encode_action, new_game, pending, step_inplace  # noqa: E402
from engine.actions import Bid, PassBid  # noqa: E402
from engine.bots import choose_all  # noqa: E402
from engine.bots._decide import auction_top  # noqa: E402
from engine.bots._profile import scaled  # noqa: E402
from engine.bots._value import static  # noqa: E402
from engine.bots.play import beacon  # noqa: E402
from engine.events import AuctionEnded, AuctionStarted  # noqa: E402
from engine.rng import BeaconRng  # noqa: E402
from engine.rules.auction import min_bid  # noqa: E402
from engine.state import CHANCE_PHASES, LOT_PROPERTY, P_AUCTION, P_OVER  # noqa: E402
from p2p.sealed import COMMIT, OPEN, SealedDecisions, commitment  # noqa: E402

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


def play(seats: int, seed: int, mode: str, sealed: bool) -> dict:
    """One game; returns the auction figures of the cheating seat and the honest seats."""
    s = new_game("classico", seats)
    prof = scaled("default", s.ed.go_salary)
    names = ["default"] * seats
    me = seed % seats
    parts = [SealedDecisions(GID, i) for i in range(seats)] if sealed else None
    ev: list = []
    won: dict[str, list[float]] = {"cheat": [], "honest": []}
    over: dict[str, list[float]] = {"cheat": [], "honest": []}
    clear: dict[str, list[float]] = {"cheat": [], "honest": []}
    tops = None
    steps = chances = rounds = peeks = k = 0
    while s.phase != P_OVER and steps < MAX_STEPS:
        steps += 1
        if s.phase in CHANCE_PHASES:
            chance_inplace(s, BeaconRng(beacon(seed, chances)), ev)
            chances += 1
        else:
            inputs = choose_all(s, names)
            if s.phase == P_AUCTION:
                rounds += 1
                bidding = s.auc_in[me] and s.auc_bidder != me
                if mode != "honest" and bidding:
                    enc = [None if a is None else encode_action(a) for a in inputs]
                    two = len(pending(s).actors) >= 2  # a sealed round (§C13.1)
                    if parts is None or not two:
                        held = enc  # plain lockstep: the patient seat waits for the others' STEPs
                    else:
                        held = _commit_round(parts, k, s, enc, me)
                    if _bids_seen(held, me):
                        peeks += 1
                    inputs[me] = cheat(s, me, mode, held, prof)
                    if parts is not None and two:
                        inputs = _open_round(parts, k, inputs, me, s)
                        k += 2
            step_inplace(s, inputs, ev)
        for e in ev:
            if type(e) is AuctionStarted:
                tops = _ceilings(s, prof) if e.square >= 0 and e.kind == "property" else None
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
        ev.clear()
    return {"won": won, "over": over, "clear": clear, "rounds": rounds, "peeks": peeks,
            "finished": s.phase == P_OVER}


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=100, help="seeded games per seat count and mode")
    ap.add_argument("--seats", type=int, nargs="+", default=[3, 4])
    args = ap.parse_args()
    print(f"classico, seats {args.seats}, {args.seeds} seeds each, one cheating seat per game. Per side: "
          "'paid' = price / printed price over the property auctions it won (mean ± standard error, "
          "count); 'clear' = the same over the auctions its ceiling was strictly the highest (no tie "
          "decided by turn order); 'over' = mean (price - fair) / printed, fair = best rival ceiling "
          "+ €1 (where an ascending auction with €1 raises ends); 'peeks' = rounds in which the "
          "cheating seat held another seat's bid before it chose")
    head = f"{'paid':>16}{'(n)':>7}{'clear':>15}{'(n)':>7}{'over':>7}"
    print(f"{'':<16}{'cheating seat':^52}{'honest seats':^52}")
    print(f"{'mode':<16}{head}{head}{'rounds/game':>12}{'peeks':>7}")
    for mode in MODES:
        for sealed in ((False,) if mode == "honest" else (False, True)):
            t0 = time.perf_counter()
            acc: dict[str, list[float]] = {f"{w}{x}": [] for w in ("cheat", "honest") for x in ("", "_over", "_clear")}
            rounds = peeks = games = 0
            for seats in args.seats:
                for seed in range(args.seeds):
                    r = play(seats, seed, mode, sealed)
                    for who in ("cheat", "honest"):
                        acc[who] += r["won"][who]
                        acc[who + "_over"] += r["over"][who]
                        acc[who + "_clear"] += r["clear"][who]
                    rounds += r["rounds"]
                    peeks += r["peeks"]
                    games += 1
            cols = []
            for who in ("cheat", "honest"):
                m, se = _mean_se(acc[who])
                o, _ = _mean_se(acc[who + "_over"])
                c, cse = _mean_se(acc[who + "_clear"])
                cols.append(f"{m:>7.1%} ±{se:>5.1%} ({len(acc[who]):>4}) {c:>6.1%} ±{cse:>5.1%} ({len(acc[who + '_clear']):>4})"
                            f"{o:>+7.1%}")
            name = mode + (" sealed" if sealed else "")
            print(f"{name:<16}{cols[0]}{cols[1]}{rounds / games:>12.1f}{peeks:>7}"
                  f"   [{time.perf_counter() - t0:.1f} s]")


if __name__ == "__main__":
    main()
