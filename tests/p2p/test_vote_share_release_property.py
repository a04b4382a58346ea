"""Version 5's release rule on the live ``SeatLoss`` (protocol.md §C8.3 'Shares in votes that
decide nothing', rule (b); H113's prototype property, H121 on the live code): no set of DROP
votes that forms no quorum at an honest seat lets anyone holding them recombine a seat's chain.

Real ``SeatLoss`` per seat (escrows dealt and opened, votes signed and verified), no session: N
seats, a target d, up to N - Q colluders that see every message, sign what they like (open,
with their real share, or with a made-up 32-byte key; for d or another seat, of this epoch or
the next) and send it to whom they like; honest seats vote open against d or not at all, take
the votes delivered to them in any order (some lost) and release when ``SeatLoss.release`` says
so, their released votes going out like any other (some lost).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import fake_engine as E
from p2p import const as C
from p2p.escrow import quorum
from p2p.seat_loss import SeatLoss
from p2p.threshold import combine
from p2p.wire import MSG_DROP, DropVote, decode_drop, decode_escrow, open_envelope, seal_message

from p2p_harness import make_lobbies, pump_lobbies

OPTS = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30}
STEP = 9
_TABLES: dict[int, tuple] = {}


def _table(n: int) -> tuple:
    """(setup, lobbies by seat) of an n-seat game with seat loss on (made once per n)."""
    if n not in _TABLES:
        lobbies = make_lobbies(n, options=OPTS)
        pump_lobbies(lobbies)
        by_seat = sorted(lobbies.values(), key=lambda lb: lb.my_seat)
        _TABLES[n] = (by_seat[0].setup, by_seat)
    return _TABLES[n]


def _seats(n: int) -> list[SeatLoss]:
    """Every seat's SeatLoss with every escrow of epoch 0 dealt and opened."""
    setup, lobbies = _table(n)
    seats = [SeatLoss(setup, i, lb.identity, lb.chain.value(0), E) for i, lb in enumerate(lobbies)]
    for dealer in seats:
        raw, _ = dealer.own_escrow(False)
        env = open_envelope(raw, C.MAX_STEP_MSG)
        for other in seats:
            if other is not dealer:
                assert other.receive_escrow(env, decode_escrow(env.body), STEP, False)[0] == "held"
    return seats


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(min_value=3, max_value=6))
def test_no_votes_short_of_a_quorum_release_a_share(data, n):
    """Whenever an honest seat releases its share of d, it holds Q votes of (k, d, epoch) from
    distinct active seats other than d; so whenever the colluders hold t = Q shares of d (their
    own plus released ones), some honest seat held such a quorum: d's drop was decided."""
    q = quorum(n)
    setup, lobbies = _table(n)
    seats = _seats(n)
    d = data.draw(st.integers(0, n - 1), label="target")
    others = [i for i in range(n) if i != d]
    colluders = set(data.draw(st.lists(st.sampled_from(others), unique=True, max_size=n - q), label="colluders"))
    honest = [i for i in others if i not in colluders]
    pending: list[tuple[int, bytes]] = []  # (recipient, envelope)
    seen_by_colluders: list[bytes] = []
    held: dict[int, set[int]] = {h: set() for h in honest}  # voters of open/released (k, d, 0) held

    def broadcast(src: int, raw: bytes, to: list[int]) -> None:
        seen_by_colluders.append(raw)
        pending.extend((r, raw) for r in to if r != src and r in held)

    def released(h: int, raw: bytes) -> None:
        assert len(held[h] | {h}) >= q, f"seat {h} released holding {sorted(held[h] | {h})} (Q = {q})"
        assert decode_drop(open_envelope(raw, C.MAX_STEP_MSG).body).share == seats[h]._shares[d]  # its own share
        broadcast(h, raw, list(range(n)))

    for h in data.draw(st.lists(st.sampled_from(honest), unique=True), label="honest voters") if honest else []:
        broadcast(h, seats[h].vote(STEP, d), list(range(n)))
        held[h].add(h)
    for c in sorted(colluders):
        for _ in range(data.draw(st.integers(0, 2), label="votes of a colluder")):
            target = data.draw(st.sampled_from([d] + [i for i in range(n) if i != c]), label="target of a lie")
            epoch = data.draw(st.sampled_from([0, 0, 1]), label="epoch")
            form = data.draw(st.sampled_from(["open", "share", "key"]), label="form")
            share = {"open": None, "share": seats[c]._shares.get(target), "key": bytes([c]) * 32}[form]
            raw = seal_message(lobbies[c].identity, MSG_DROP, DropVote(setup.game_id, c, STEP, target, epoch, share))
            to = data.draw(st.lists(st.sampled_from(honest), unique=True), label="to") if honest else []
            broadcast(c, raw, to)
    while pending:
        i = data.draw(st.integers(0, len(pending) - 1), label="next delivery")
        h, raw = pending.pop(i)
        if data.draw(st.integers(0, 9), label="loss") == 0:
            continue
        env = open_envelope(raw, C.MAX_STEP_MSG)
        v = decode_drop(env.body)
        if v.voter == h or not seats[h].verify_vote(env, v) or seats[h].add_vote(env, v) is not None:
            continue  # ours, or a second vote of the slot (an equivocation: proven, not counted)
        if v.step == STEP and v.seat == d and v.epoch == 0 and v.voter != d:
            held[h].add(v.voter)
        out = seats[h].release(STEP, d)
        if out is not None:
            released(h, out)
    shares = {c: seats[c]._shares[d] for c in colluders}
    for raw in seen_by_colluders:
        v = decode_drop(open_envelope(raw, C.MAX_STEP_MSG).body)
        if v.seat == d and v.share is not None and v.voter not in colluders:
            shares[v.voter] = v.share
    if len(shares) >= q:
        assert any(len(held[h] | {h}) >= q for h in honest)  # a quorum against d was held (and released into)
        assert combine(dict(list(shares.items())[:q])) == lobbies[d].chain.value(0)  # what it is worth


def test_n_minus_q_colluders_and_the_honest_open_votes_alone_release_nothing():
    """H107's break (3 seats): one honest open vote, a colluder that does not vote: no release."""
    seats = _seats(3)
    raw = seats[0].vote(STEP, 1)
    env = open_envelope(raw, C.MAX_STEP_MSG)
    assert decode_drop(env.body).share is None  # open: the share stays home
    assert seats[2].add_vote(env, decode_drop(env.body)) is None
    assert seats[0].release(STEP, 1) is None
