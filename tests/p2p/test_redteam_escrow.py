"""Red team of the drop recombination and COMPLAINT kind 5 (protocol.md §C8.2, §C8.3, §C8.8):
a hostile dealer equivocates its ESCROW — the envelope it deals to seat 0 (E1) is not the one
it deals to seats 1 and 2 (E2, another secret, validly signed) — and then goes silent. Each
honest voter checked its own share against the escrow it holds and votes DROP with it; every
other peer compares that share with *its* escrow of the dealer, sees a mismatch, and proves the
voter a liar (kind 5): all three honest seats are convicted (each by the others, also in
`verify`), each votes the others out, no drop reaches Q, and the game stalls for good.

OPEN (not accepted; protocol.md §C8.3 fault table row 'an equivocating dealer'): the kind-5
verdict must not stand when the dealer signed two escrows for the epoch (equivocation beats a
false share), and a voter must show which escrow its share was checked against (forward its
copy with its vote, or name it in the vote). Forwarding alone is not enough today: the dealer
is then proven (equivocation) but the honest voters are still convicted. The strict xfail
below flips when it is fixed."""

from __future__ import annotations

import pytest

import fake_engine as E
from p2p import const as C
from p2p.escrow import make_escrow
from p2p.lockstep import CheaterProven
from p2p.seat_loss import quorum
from p2p.wire import MSG_ESCROW, decode_escrow, open_envelope

from p2p_harness import Net, random_legal
from test_resilience import logged_game


@pytest.mark.xfail(strict=True, reason="OPEN, protocol.md §C8.3 'an equivocating dealer': two escrows of one "
                                       "dealer frame every honest voter with COMPLAINT kind 5 and stall the game")
def test_an_equivocating_dealer_frames_no_honest_voter(tmp_path):
    sessions, _, _, _ = logged_game(tmp_path, 4, {"target": 60, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3})
    setup = sessions[0].setup
    xkeys = [p.x25519_key for p in setup.players]
    forged = {}

    def drop(src, dst, data):
        if src == 3 and data[:2] == bytes([0x93, MSG_ESCROW]) and dst in (1, 2):
            e = decode_escrow(open_envelope(data, C.MAX_STEP_MSG).body)
            if e.epoch not in forged:
                forged[e.epoch] = make_escrow(sessions[3].identity, b"\x77" * 32, setup.game_id, 3, e.epoch,
                                              [x.to for x in e.entries], xkeys, quorum(4))
            net.s[dst].receive_message(forged[e.epoch], net.now)
            return True
        return False

    def hook(net):
        if net.s[3] is not None and net.s[3].step >= 8:
            net.s[3] = None  # the dealer goes silent: the honest seats vote it out with their shares
        return None

    net = Net(list(sessions), random_legal(E, seed=4), drop=drop)
    net.run(max_time=1e5, hook=hook)
    assert forged
    for i in range(3):
        framed = {e.seat for e in net.events[i] if isinstance(e, CheaterProven)} - {3}
        assert not framed, (i, framed)
        assert net.s[i].phase == "finished", (i, net.s[i].phase)
