"""The table the hidden-information fault tests (tests/p2p/test_hidden_faults_*.py) judge on
(protocol.md §C12.4, §C12.5, §C8.8 kind 4): the start deal of a real niente-e-come-sembra game of
``N`` seats (every seat owes every other its start wallet at step 0), every seat's identity and hidden
secret, a fresh ledger with every seat's private view (``table``), the honest fields of a step, a
STEP envelope carrying a field (``step_raw``), a wrong or foreign-keyed delivery (``wrong_delivery``),
and the few setup fields ``complaints`` reads (``SETUP``).
"""

from __future__ import annotations

import hashlib

import engine as E
from p2p.hidden import (OPEN_LEN, TAG_LEN, HiddenLedger, delivery_key, hidden_secret, layout_of_state, make_leaves,
                        seal_delivery)
from p2p.identity import Identity
from p2p.private_view import PrivateView
from p2p.wire import MSG_STEP, seal


ED = "niente-e-come-sembra"
N = 4
GID = bytes(range(16))
IDS = [Identity.from_seed(bytes([i])) for i in range(N)]
HS = [hashlib.sha256(b"hidden-faults-test" + bytes([i])).digest() for i in range(N)]
STATE = E.new_game(ED, N)
LAYOUT = layout_of_state(STATE)
LEAVES = [make_leaves(hidden_secret(h), GID, i, LAYOUT.items) for i, h in enumerate(HS)]
#: Items opened at the inspection steps of these tests: two bills and one Imprevisti.
INSPECTION = [("bill", 3), ("bill", 200), ("card", 5)]


class _Setup:
    """The few setup fields ``complaints`` reads: game id, seats, every seat's public key."""

    def __init__(self) -> None:
        self.game_id, self.seats = GID, N
        self.players = [type("P", (), {"public_key": i.public_key})() for i in IDS]


SETUP = _Setup()


def table():
    """A fresh ledger of the start state and every seat's private view of it."""
    led = HiddenLedger(GID, N, LAYOUT, LEAVES, STATE)
    xkeys = [i.x25519_public_key for i in IDS]
    views = [PrivateView(led, s, hidden_secret(HS[s]), IDS[s], xkeys) for s in range(N)]
    return led, views


def honest_fields(views, step, inspection=None):
    return [v.my_field(step, inspection) for v in views]


def step_raw(seat, step, field, prev=(b"\x00" * 32, b"\x00" * 32)):
    """A STEP envelope of ``seat`` carrying ``field``, signed by the seat."""
    return seal(IDS[seat], MSG_STEP, [GID, step, seat, prev[0], prev[1], None, field])


def wrong_delivery(views, sender, to, step, foreign=False):
    """``sender``'s field with its delivery to ``to`` replaced by zero openings, sealed under the
    right key (only the holder can tell), or with ``foreign`` its right openings sealed under
    another key (the holder cannot open it, and nobody can tell whose key is wrong)."""
    f = views[sender].my_field(step, None)
    for d in f[0]:
        if d[0] == to:
            n = (len(d[1]) - TAG_LEN) // OPEN_LEN
            key = delivery_key(IDS[sender].x25519_exchange(IDS[to].x25519_public_key), GID, sender, to, step)
            plain = bytes(OPEN_LEN * n)
            if foreign:
                plain = b"".join(hidden_opening(sender, t) for t in views[sender].ledger.expected(sender)[
                    [r for r, _ in views[sender].ledger.expected(sender)].index(to)][1])
                key = hashlib.sha256(b"another key").digest()
            d[1] = seal_delivery(key, GID, sender, to, step, plain)
    return f


def hidden_opening(seat, item):
    """Seat ``seat``'s opening of ``item`` (from its hidden secret: only a test knows them all)."""
    from p2p.hidden import opening
    return opening(hidden_secret(HS[seat]), item)


def apply(led, views, step, fields):
    for v in views:
        v.receive(step, fields)
    led.after_step(step, fields, STATE)
