"""Red team s12b (H128): what held when attacked (protocol version 5, d585a93).

* §C8.3 rule (a), a released key (bin(32)) abused: the key a voter publishes is its pairwise key
  of ONE entry (dealer, recipient, epoch, ``escrow.pair_key``): it opens neither the voter's own
  escrow's entry for that dealer (the other direction), nor the dealer's entry for it in another
  epoch, nor another voter's entry; so a colluder holding it plus its own shares learns no share
  of the honest voter's chain (that would recombine an ACTIVE honest seat's h_0: t = 2 of 3).
* §C3.4 'Refused messages' (d585a93): the digests are of the exact envelope a peer verified and
  refused, so a relayer cannot put a good message's bytes there first: a garbled copy of a seat's
  message (bad signature) sent first any number of times is never remembered as refused, and the
  seat's own signed message is still taken.
In memory, virtual clock, fake engine.
"""

from __future__ import annotations

from p2p import aead
from p2p.escrow import NONCE, make_escrow, pair_key, share_ctx
from p2p.wire import decode_escrow, open_envelope

from p2p_harness import started_sessions
from test_forced_session import garble
from test_vote_share_release import SECRET, _table3


def _opens(key: bytes, raw_escrow: bytes, to: int) -> bool:
    """True if ``key`` decrypts ``to``'s entry of the ESCROW envelope ``raw_escrow``."""
    e = decode_escrow(open_envelope(raw_escrow).body)
    entry = next(x for x in e.entries if x.to == to)
    return aead.decrypt(key, NONCE, entry.ct, share_ctx(e.game_id, e.seat, to, e.epoch)) is not None


def test_a_released_key_opens_one_entry_only():
    """§C8.3 rule (a) holds against released-key abuse: seat 1 releases its key of dealer 2's
    entry (epoch 0). It opens that entry and nothing else a colluder could use: not seat 1's
    own escrow's entry for seat 2 (seat 1's share of its OWN chain), not dealer 2's entry for
    seat 1 in epoch 1, not dealer 2's entry for seat 0."""
    setup, ids = _table3()
    gid, xkeys = setup.game_id, [p.x25519_key for p in setup.players]
    released = pair_key(ids[1], xkeys[2], gid, 2, 1, 0)
    assert released == pair_key(ids[2], xkeys[1], gid, 2, 1, 0)  # both ends compute it
    dealer2_e0 = make_escrow(ids[2], SECRET, gid, 2, 0, [0, 1], xkeys, 2)
    dealer2_e1 = make_escrow(ids[2], SECRET, gid, 2, 1, [0, 1], xkeys, 2)
    voter1_own = make_escrow(ids[1], bytes(32), gid, 1, 0, [0, 2], xkeys, 2)
    assert _opens(released, dealer2_e0, 1)
    assert not _opens(released, voter1_own, 2)
    assert not _opens(released, dealer2_e1, 1)
    assert not _opens(released, dealer2_e0, 0)


def test_a_garbled_copy_sent_first_never_gets_the_real_message_refused():
    """§C3.4 'Refused messages' holds: at plain chance step 0 a relayer sends seat 1's message
    with its signature garbled, 10 times, before the real one (held unchecked, §C3.8, then
    duplicates): nothing is remembered as refused
    (``refused_again`` 0, no refusal kept), the real signed message takes the slot, the step
    applies."""
    s0, s1, s2 = started_sessions(3)
    raw = s1.messages_to_send()[0]
    for _ in range(10):
        s0.receive_message(garble(raw), 0.0)
    assert s0.stats["refused_again"] == 0 and not s0.steps.refusals
    s0.receive_message(raw, 0.0)
    assert s0.steps.held(0, 1).env.raw == raw  # the signed copy replaced the garbled one
    s0.receive_message(s2.messages_to_send()[0], 0.0)
    assert s0.step == 1 and s0.phase == "running" and s0.stats["refused_again"] == 0
