"""The hidden layer reaches the engine only through engine.api.HiddenInformation (issue 13):
a stand-in engine of a few lines (two bills, no Imprevisti, states as plain dicts) drives the
layout, what is due (protocol.md §C12.3), the private deliveries and statuses (§C12.4, §C12.7)
and an inspection (§C12.5) without the real engine: a state without ``nx`` would break any
direct read of engine.observation."""

from __future__ import annotations

import hashlib

from engine.api import HiddenInformation
from p2p.hidden import MODULUS, HiddenLedger, Layout, hidden_secret, layout_of_state, make_leaves, opening, share_of
from p2p.identity import Identity
from p2p.private_view import PrivateView

import fake_engine

N = 3
GID = bytes(range(16))
IDS = [Identity.from_seed(bytes([40 + i])) for i in range(N)]
HS = [hidden_secret(hashlib.sha256(b"hidden-seam" + bytes([i])).digest()) for i in range(N)]


class TwoBills:
    """Hidden information and nothing else: bill 0 (€10) is seat 0's, bill 1 (€50) seat 1's;
    a state is ``{"held": [[bill ids] per seat], "revealed": None or the outcomes}``."""

    def has_hidden(self, state):
        return True

    def denominations(self, state):
        return (10, 50)

    def card_pairs(self, state):
        return 0

    def fake_thresholds(self, state, modulus):
        return {10: modulus // 2, 50: modulus // 4}

    def held_unknown(self, state, seat):
        return list(state["held"][seat]), []

    def hidden_items(self, state):
        return [("bill", 0), ("bill", 1)]

    def apply_reveal(self, state, fakes):
        return dict(state, revealed=list(fakes)), ("revealed",)

    def choose(self, state, seat, bot="default", view=None):
        return None


def truth(layout, ident):
    """Whether bill ``ident`` is fake, from every seat's shares (only a test knows them all)."""
    return layout.is_fake("bill", ident, sum(share_of(opening(h, ident)) for h in HS))


def test_a_stand_in_engine_drives_the_hidden_layer():
    engine = TwoBills()
    assert isinstance(engine, HiddenInformation)
    state = {"held": [[0], [1], []], "revealed": None}
    layout = layout_of_state(state, engine)
    assert layout == Layout(2, 0, (10, 50), {10: MODULUS // 2, 50: MODULUS // 4})
    leaves = [make_leaves(HS[i], GID, i, layout.items) for i in range(N)]
    led = HiddenLedger(GID, N, layout, leaves, state, engine)
    # §C12.3: every other seat owes each holder its bill; nobody holds anything for seat 2.
    assert [led.expected(s) for s in range(N)] == [[(1, [1])], [(0, [0])], [(0, [0]), (1, [1])]]
    xkeys = [i.x25519_public_key for i in IDS]
    views = [PrivateView(led, s, HS[s], IDS[s], xkeys) for s in range(N)]
    fields = [v.my_field(0, None) for v in views]
    assert led.find_fault(fields, None) is None
    for v in views:
        v.receive(0, fields)
        v.refresh(state)
    led.after_step(0, fields, state)
    # §C12.7: each holder now knows its own bill, and only that.
    assert views[0].status() == {("bill", 0): truth(layout, 0)}
    assert views[1].status() == {("bill", 1): truth(layout, 1)}
    assert views[2].status() == {}
    # §C12.5: at an inspection every seat opens its shares in public; the stand-in is handed the truth.
    inspection = engine.hidden_items(state)
    fields = [v.my_field(1, inspection) for v in views]
    fault, (after, events) = led.resolve(engine, state, fields, inspection)
    assert fault is None and events == ("revealed",)
    assert after["revealed"] == [truth(layout, 0), truth(layout, 1)]


def test_the_race_stand_in_has_no_hidden_layout():
    """An engine without HiddenInformation (the p2p tests' dice race) plays without the layer."""
    state = fake_engine.new_game("race", 2)
    assert layout_of_state(state, fake_engine) is None
