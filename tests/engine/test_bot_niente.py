"""The niente bot's inspections tell nobody what it knows (issue 10; engine/bots/_niente.py).

Rulebook (monopoly-niente-e-come-sembra.txt): "un giocatore qualsiasi può utilizzare un gettone
lente di ingrandimento per controllare il denaro utilizzato" and "cercate anche di non far
capire agli altri giocatori quali sono le banconote false". Everybody sees which bill a seat
inspects and when it lets a payment pass; the bot that inspected the bills it knew to be fake
(it had held them) and never those it knew genuine told the table its knowledge (18 of 18
inspections of a bill the inspector had held found a fake, 3 of 25 otherwise). The bot now
decides from public facts and its own secret only: its choice is the same whatever statuses its
view holds (bench/bench_hidden.py --bots measures the hit rates and the win rate).
"""
from functools import lru_cache

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.bots import _niente
from engine.bots.play import beacon
from engine.actions import InspectBill
from engine.rules.banknotes import NX_CARD, NX_DEN, NX_PUB
from engine.rules.counterfeit import bill_choices


@lru_cache(maxsize=1)
def _windows() -> tuple:
    """Inspection windows and face-up choices of two engine-only 4-seat niente games (bots
    without a view; an "inspection" outcome from the chance source,
    engine.rules.niente_flow.standin_reveal): (state, seat) for every seat that decides."""
    out = []
    for seed in (1, 2):
        s = engine.new_game("niente-e-come-sembra", 4)
        k = 0
        while not engine.is_terminal(s) and len(out) < 60 * seed:
            p = engine.pending(s)
            if p.chance:
                s, _ = engine.apply_chance(s, beacon(seed, k))
                k += 1
                continue
            if p.kind in ("inspect_window", "take_card"):
                out += [(s, seat) for seat in p.actors]
            s, _ = engine.apply_step(s, [_niente.choose(s, i, "default", None) for i in range(s.n)])
    return tuple(out)


def _items(s) -> list:
    """Every bill and Imprevisti card of ``s``'s game, as view keys."""
    bills = [("bill", b) for b in range(len(s.nx[NX_DEN]))]
    return bills + [("card", c) for c in range(len(s.ed.decks[1]))]


def test_the_windows_cover_bills_cards_and_face_up_choices():
    w = _windows()
    kinds = {engine.pending(s).kind for s, _ in w}
    assert kinds == {"inspect_window", "take_card"}
    w = [(s, seat) for s, seat in w if engine.pending(s).kind == "inspect_window"]
    assert any(s.nx[NX_CARD] for s, _ in w) and any(not s.nx[NX_CARD] for s, _ in w)
    assert any(type(_niente.choose(s, seat, "default", None)) is InspectBill for s, seat in w)


@settings(max_examples=60, deadline=None)
@given(pick=st.integers(0, 10 ** 6), statuses=st.lists(st.booleans(), min_size=1, max_size=400),
       secret=st.binary(min_size=32, max_size=32))
def test_an_inspection_does_not_depend_on_the_statuses_the_bot_knows(pick, statuses, secret):
    """Whatever the view says of any bill or card (fake, genuine, or nothing), the bot makes the
    same inspection choice, and takes the same face-up card, as with an empty view and the same
    secret ("cercate anche di non far capire agli altri giocatori quali sono le banconote
    false")."""
    w = _windows()
    s, seat = w[pick % len(w)]
    items = _items(s)
    view = _niente.PrivateView({items[(pick + 7 * i) % len(items)]: f for i, f in enumerate(statuses)}, secret)
    assert _niente.choose(s, seat, "default", view) == _niente.choose(s, seat, "default",
                                                                     _niente.PrivateView({}, secret))


def test_a_known_fake_is_not_inspected_first_any_more():
    """A seat that knows a bill of the window is fake (it held it) picks the same bill as if it
    knew nothing: the one its public rule (gain, then its secret order) picks."""
    checked = 0
    for s, seat in _windows():
        if engine.pending(s).kind != "inspect_window" or s.nx[NX_CARD]:
            continue
        blind = _niente.choose(s, seat, "default", _niente.PrivateView({}, b"s" * 32))
        for b in bill_choices(s, seat):
            known = _niente.PrivateView({("bill", b): True}, b"s" * 32)
            assert _niente.choose(s, seat, "default", known) == blind
            checked += 1
    assert checked


def test_a_seat_without_a_secret_inspects_the_lowest_id_among_equal_bills():
    """A dropped seat's bot has no view: among the bills of the best gain (here: of the same
    denomination, none public) it picks the lowest id, the same on every peer."""
    picked = 0
    for s, seat in _windows():
        a = _niente.choose(s, seat, "default", None)
        if type(a) is not InspectBill:
            continue
        den = s.nx[NX_DEN]
        assert a.bill == min(b for b in bill_choices(s, seat) if den[b] == den[a.bill] and not s.nx[NX_PUB][b])
        picked += 1
    assert picked


def test_a_face_up_card_known_fake_or_genuine_is_chosen_as_if_unknown():
    """Taking a face-up Imprevisti is seen by everybody: a seat that held one of them and knows
    it fake (or genuine) chooses exactly as if it knew nothing."""
    from engine.rules.banknotes import NX_FACEUP
    checked = 0
    for s, seat in _windows():
        if engine.pending(s).kind != "take_card":
            continue
        blind = _niente.choose(s, seat, "default", _niente.PrivateView({}, b"s" * 32))
        for card in s.nx[NX_FACEUP]:
            if card < 0:
                continue
            for fake in (True, False):
                known = _niente.PrivateView({("card", card): fake}, b"s" * 32)
                assert _niente.choose(s, seat, "default", known) == blind
                checked += 1
    assert checked


def _inspection_from_the_text(s, seat: int, secret: bytes | None):
    """protocol.md Part B "niente-e-come-sembra inspections", from the text alone."""
    from hashlib import sha256

    from engine.actions import InspectCard
    from engine.rules.banknotes import FAKE, GENUINE, NX_CPUB, NX_LENS
    from engine.rules.counterfeit import fake_rate, window_actors
    if seat not in window_actors(s):
        return None
    nx = s.nx
    if nx[NX_CARD]:
        card = nx[NX_CARD][2]
        known = nx[NX_CPUB][card] or nx[NX_CPUB][card ^ 1]
        genuine = nx[NX_CPUB][card] == GENUINE or nx[NX_CPUB][card ^ 1] == FAKE
        return None if known and genuine else InspectCard()
    best = None
    for b in bill_choices(s, seat):
        num, den = (0, 1) if nx[NX_PUB][b] else fake_rate(s.ed, nx[NX_DEN][b])
        gain = nx[NX_DEN][b] * num * 100 // den
        key = (-gain, sha256(secret + b.to_bytes(4, "big")).digest() if secret else b"", b)
        if best is None or key < best[0]:
            best = (key, b)
    if best is None:
        return None
    need = 2000 if nx[NX_LENS][seat] >= 2 else 4000
    return InspectBill(best[1]) if -best[0][0] >= need else None


def test_the_prose_gives_the_bots_inspection():
    """Part B's inspection rule, recomputed from its text, with and without a secret."""
    checked = 0
    for s, seat in _windows():
        if engine.pending(s).kind != "inspect_window":
            continue
        for secret in (None, b"s" * 32, b"t" * 32):
            view = _niente.PrivateView({}, secret) if secret else None
            assert _inspection_from_the_text(s, seat, secret) == _niente.choose(s, seat, "default", view)
            checked += 1
    assert checked
