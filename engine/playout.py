"""Random playouts: seeded pseudo-random games on the engine's fast in-place path, for
benchmarks and property tests only (moved out of engine.game, issue 13: the state machine
stays one job).

The beacons are SHA-256 of the seed and step number, not a real commit-reveal (protocol.md
§C4); the default policy is a cheap deterministic stand-in, not a bot of engine.bots.
"""
from __future__ import annotations

from hashlib import sha256

from . import actions as A
from .board import K_STREET
from .game import chance_inplace, new_game, step_inplace
from .legal import bid_limits, legal_actions
from .rng import BeaconRng
from .state import CHANCE_PHASES, P_AUCTION, P_BUY, P_DICE, P_INHERIT, P_OVER, P_RAISE, P_ROLL, State

__all__ = ["random_playout", "default_policy"]


def random_playout(seed: int, seats: int = 4, max_steps: int = 200_000, edition: str =
                   "classico", policy=None) -> tuple[State, dict]:
    """Play a game with a seeded pseudo-random policy on the fast in-place path; returns the
    final state and counters {"steps", "chance", "dice", "decisions"}. For benchmarks and
    property tests only (the beacons are SHA-256 of the seed and step number, not a real
    commit-reveal). ``policy(s, seat, legal, rnd) -> Action | None`` overrides the default
    policy, which buys when it can, bids a little, builds and claims rent when possible, and
    raises money before declaring bankruptcy."""
    s = new_game(edition, seats)
    pol = policy or default_policy
    counts = {"steps": 0, "chance": 0, "dice": 0, "decisions": 0}
    rnd = BeaconRng(sha256(b"playout" + seed.to_bytes(8, "big")).digest())
    ev: list = []
    base = sha256(b"beacon" + seed.to_bytes(8, "big")).digest()
    n = s.n
    while s.phase != P_OVER and counts["steps"] < max_steps:
        counts["steps"] += 1
        if s.phase in CHANCE_PHASES:
            if s.phase == P_DICE:
                counts["dice"] += 1
            counts["chance"] += 1
            chance_inplace(s, BeaconRng(base + counts["steps"].to_bytes(8, "big")), ev)
        else:
            counts["decisions"] += 1
            inputs = [pol(s, seat, None, rnd) for seat in range(n)]
            step_inplace(s, inputs, ev)
        ev.clear()
    return s, counts


def default_policy(s: State, seat: int, legal, rnd) -> object:
    """A cheap deterministic policy for playouts (not a bot of engine.bots)."""
    ph = s.phase
    if s.out[seat]:
        return None
    if ph == P_ROLL and s.current == seat:
        if s.jail[seat] and s.cash[seat] > 500:
            return A.PayJailFine()
        return A.RollDice()
    if ph == P_BUY and s.current == seat:
        if s.cash[seat] >= s.tb.price[s.pos[seat]] and rnd.below(4):
            return A.BuyProperty()
        return A.DeclineProperty()
    if ph == P_AUCTION:
        lim = bid_limits(s, seat)
        if lim is None:
            return None
        if lim[0] <= s.tb.price[s.auc_sq] * 3 // 4 and rnd.below(3) and lim[1] - lim[0] > 300:
            return A.Bid(lim[0] + rnd.below(20))
        return A.PassBid()
    if ph == P_RAISE and s.debts[0][0] == seat:
        legal = legal_actions(s, seat)
        for a in legal:
            if type(a) in (A.SellBuilding, A.Mortgage):
                return a
        return A.DeclareBankruptcy()
    if ph == P_INHERIT and s.inherit[0] == seat:
        return A.SettleMortgages(())
    for c in s.claims:
        if c[0] == seat:
            return A.ClaimRent(c[2], c[1])
    if s.cash[seat] > 400 and rnd.below(4) == 0:
        tb = s.tb
        for sq in tb.properties:
            if s.owner[sq] == seat:
                if s.mort[sq]:
                    if s.ed.estate.lift_error(s, seat, sq) is None:
                        return A.LiftMortgage(sq)
                elif tb.kind[sq] == K_STREET and s.ed.estate.build_error(s, seat, sq) is None:
                    return A.BuildHouse(sq)
    return None
