"""An escrow entry sealed under another key frames nobody (protocol.md §C8.2, §C8.5, §C8.8 kind
3; H127 review #6, H133).

A hostile dealer seals one recipient X's entry under a key nobody knows. X's own key does not
decrypt it, and a judge cannot tell X's true key from a made-up one (no proof of discrete-log
equality), so it proves nothing either way. Before, X sent a kind-3 COMPLAINT with its key and
every judge found "false complaint: its key does not open the escrow share": the honest X was
proven and voted out, the dealer not. Now X complains only when its key decrypts its entry to
bytes that do not match the commitment (``escrow.key_proves_bad``), a judge treats a key that
does not decrypt as proving nothing (charged to the complainer's budget), and X holds no share:
its vote against the dealer stays open (§C8.3 rule (a)). Its drop then recombines the dealer's
chain from t other recipients' shares when there are t of them (N = 5), else it waits (N = 3:
paused, abandoned at the stall limit; §C8.5). For contrast, an entry of garbage under X's TRUE key
is proven by X (kind 3) and its dealer dropped alike everywhere.

In memory (``p2p_harness.Net``, fake engine), real crypto and real sessions with logs.
"""

from __future__ import annotations

import hashlib

import fake_engine as E
from p2p import aead
from p2p import const as C
from p2p.complaints import COMPLAINT_BUDGET, Complaints, check_escrow
from p2p.escrow import NONCE, key_proves_bad, pair_key, share_ctx
from p2p.lockstep import CheaterProven, GameOver, SeatDropped, SeatDropVoted
from p2p.session_events import PeerMisbehaved
from p2p.verify import verify_log
from p2p.wire import MSG_COMPLAINT, MSG_ESCROW, decode_escrow, open_envelope, seal_message

from p2p_harness import Net, drain, random_legal
from test_escrow import BadDealer
from test_resilience import logged_game

DROP = {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}
X = 1  # the recipient whose entry no key of its opens


class SealedDealer(BadDealer):
    """The last seat deals escrows whose entry for seat ``X`` is sealed under a key derived from
    nothing X knows (every other entry honest) and otherwise plays honestly; from its first
    reveal at a step >= ``at`` on it sends nothing (it withholds, ``test_escrow.BadDealer``'s
    ``drop``, the ``Net`` drop rule)."""

    def __init__(self, session, at: int = 2**62, garbage: bool = False) -> None:
        super().__init__(session, at)
        self._cache: dict[bytes, bytes] = {}
        self.garbage = garbage  # 66 zero bytes under X's true key instead (X's key proves it)

    def rewrite(self) -> list:
        out = []
        for raw in self._send():
            if raw[:2] == bytes([0x93, MSG_ESCROW]):
                if raw not in self._cache:
                    e = decode_escrow(open_envelope(raw, C.MAX_STEP_MSG).body)
                    key = hashlib.sha256(b"nobody's key" + bytes((e.epoch,))).digest()
                    if self.garbage:
                        key = pair_key(self.s.identity, self.s.setup.players[X].x25519_key, e.game_id, e.seat,
                                       X, e.epoch)
                    ents = tuple(en._replace(ct=aead.encrypt(key, NONCE, bytes(C.SHARE_LEN),
                                                             share_ctx(e.game_id, e.seat, X, e.epoch)))
                                 if en.to == X else en for en in e.entries)
                    self._cache[raw] = seal_message(self.s.identity, MSG_ESCROW, e._replace(entries=ents))
                raw = self._cache[raw]
            out.append(raw)
        return out


def _run(tmp_path, n: int, at: int = 2**62, seed: int = 4, max_time: float = 1e4, garbage: bool = False):
    sessions, paths, _, _ = logged_game(tmp_path, n, DROP)
    dealer = SealedDealer(sessions[n - 1], at, garbage)
    sent: list[bytes] = []

    def drop(src: int, dst: int, raw: bytes) -> bool:
        if raw[:2] == bytes([0x93, MSG_COMPLAINT]):
            sent.append(raw)
        return dealer.drop(src, dst, raw)

    net = Net(list(sessions), random_legal(E, seed=seed), drop=drop)
    net.run(max_time=max_time)
    return sessions, paths, net, dealer, sent


def _no_one_proven(net, seats) -> None:
    for i in seats:
        assert not [e for e in net.events[i] if isinstance(e, CheaterProven)]


def _one_final_hash(sessions, paths, net, seats, cheaters=None) -> None:
    """``seats`` end with one GameOver each, one final hash, and logs that verify complete (with
    ``cheaters`` == [] when given)."""
    overs = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in seats]
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1
    for i in seats:
        sessions[i].log.close()
        rep = verify_log(paths[i], engine=E)
        assert rep.ok and rep.complete, rep.error
        assert cheaters is None or rep.cheaters == cheaters


def test_a_key_that_does_not_decrypt_the_entry_proves_nothing_to_a_judge(tmp_path):
    """§C8.8 kind 3: X's key does not decrypt its sealed entry: ``check_escrow`` proves nothing
    (None, not X), ``key_proves_bad`` is False (X's vote stays open, nothing to release), and the
    complaint is charged to X's budget like any that proves nothing. X's ``EscrowGate`` sends
    no COMPLAINT, counts ``unproven`` and emits a local ``PeerMisbehaved`` naming the dealer."""
    n = 5
    sessions, _, _, _ = logged_game(tmp_path, n, DROP)
    d = n - 1
    SealedDealer(sessions[d])
    raw = next(m for m in sessions[d].messages_to_send() if m[:2] == bytes([0x93, MSG_ESCROW]))
    e = decode_escrow(open_envelope(raw, C.MAX_STEP_MSG).body)
    x = sessions[X]
    key = x.seats.share_key(d)
    assert check_escrow(x.setup, X, raw, key, [True] * n) is None
    assert not key_proves_bad(e, X, key)
    book = Complaints()
    book.judged(b"complaint", X, None)
    assert book._spent[X] == 1 < COMPLAINT_BUDGET
    before = x.stats["unproven"]
    x.receive_message(raw, 0.0)
    assert x.seats.escrow_of(d) == raw  # held: the gate does not wait for it
    assert not [m for m in x.messages_to_send() if m[:2] == bytes([0x93, MSG_COMPLAINT])]
    assert x.stats["unproven"] == before + 1
    evs = drain(x)
    assert [ev.seat for ev in evs if isinstance(ev, PeerMisbehaved)] == [d]
    assert not [ev for ev in evs if isinstance(ev, CheaterProven)]


def test_a_sealed_entry_frames_nobody_and_the_game_ends_with_one_final_hash(tmp_path):
    """n = 3 and 5, the dealer otherwise honest: no COMPLAINT is ever sent, nobody is proven or
    dropped, every seat ends with one final hash, and every log verifies (was: X proven by every
    other seat and voted out at step 0, H127's end-to-end repro)."""
    for n in (3, 5):
        (tmp_path / f"n{n}").mkdir()
        sessions, paths, net, _, sent = _run(tmp_path / f"n{n}", n)
        assert sent == []
        _no_one_proven(net, range(n))
        assert not any(isinstance(e, (SeatDropVoted, SeatDropped)) for evs in net.events for e in evs)
        _one_final_hash(sessions, paths, net, range(n), [])


def test_five_seats_drop_the_withholding_dealer_with_its_real_chain(tmp_path):
    """n = 5 (m = 4, t = 3): the dealer of the sealed entry later withholds its reveal. X's vote
    stays open (no share, no key that proves anything); the releases of the three other
    recipients recombine the dealer's real chain (§C8.3 'Recombination'): it is dropped with
    ``reconstructed`` True, nobody is proven, and seats 0-3 end with one final hash."""
    n, d = 5, 4
    sessions, paths, net, dealer, sent = _run(tmp_path, n, at=6)
    k = dealer.withheld_at
    assert k is not None and sent == []
    _no_one_proven(net, range(d))
    for i in range(d):
        assert [(e.step, e.seat, e.reconstructed) for e in net.events[i] if isinstance(e, SeatDropped)] == \
            [(k, d, True)]
    _one_final_hash(sessions, paths, net, range(d), [])


def test_three_seats_the_withholding_dealers_drop_waits_for_a_share_nobody_holds(tmp_path):
    """n = 3 (m = 2, t = 2), the limit of §C8.5: the dealer of the sealed entry withholds its
    reveal; seats 0 and 1 vote it out, seat 0 releases its share, X has nothing to release: one
    share < t, no key proves anything, so the drop decides no reveal and the step waits (both
    ``paused()`` naming the dealer; their nodes abandon at the stall limit). Nobody is proven,
    no stand-in is applied (it would fork from a peer that recombines), X keeps its seat."""
    n, d = 3, 2
    sessions, _, net, dealer, sent = _run(tmp_path, n, at=6, max_time=600.0)
    k = dealer.withheld_at
    assert k is not None and sent == []
    _no_one_proven(net, (0, 1))
    for i in (0, 1):
        s = sessions[i]
        assert s.step == k and s.paused() == (d,)
        assert not [e for e in net.events[i] if isinstance(e, (SeatDropped, GameOver))]
        assert [e.seat for e in net.events[i] if isinstance(e, SeatDropVoted)] == [d]


def test_five_seats_a_garbage_entry_under_the_true_key_is_proven_and_every_seat_drops_alike(tmp_path):
    """n = 5, the entry for X garbage under their TRUE key (H127 review #1's escrow, honest X): X
    proves the dealer at once (kind 3 with its key: ``key_proves_bad``), seats 0-3 prove it and
    vote it out before its escrow is CONFIRMED, so the first t votes decide the stand-in, no
    share looked at (§C8.2 'What the confirmation decides': nobody has revealed since). Every
    seat drops it at the same step alike and ends with one final hash; the logs verify."""
    n, d = 5, 4
    sessions, paths, net, _, sent = _run(tmp_path, n, garbage=True)
    assert sent  # X's kind-3 complaint
    drops = []
    for i in range(d):
        assert {e.seat for e in net.events[i] if isinstance(e, CheaterProven)} == {d}
        drops.append([(e.step, e.seat, e.reconstructed) for e in net.events[i] if isinstance(e, SeatDropped)])
    assert len(drops[0]) == 1 and drops[0][0][1:] == (d, False) and all(x == drops[0] for x in drops)
    _one_final_hash(sessions, paths, net, range(d))
