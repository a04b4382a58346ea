"""What a chat room keeps of the authors it hears (protocol.md §N9 check 6 and 'What does not',
§N2.6 'Bounds'): a new author's token bucket only once a token is taken from it (its line
verified, or charged to its own source), members always, at most ``RELAYED_AUTHORS_KEPT``
authors who are not members (relayed), the first kept longest ago forgotten first. H94's
break: every line naming a fresh author key left a bucket behind for the whole game, before
the rate and signature checks (10,000 lines never shown -> 1.9 MB)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from p2p.chat import PLAYER, RELAYED_AUTHORS_KEPT, SPECTATOR, ChatRoom
from p2p.identity import Identity
from p2p.wire import MSG_CHAT, seal

GID = bytes(range(16))
ME, ANNA = Identity.from_seed(b"mem-me"), Identity.from_seed(b"mem-anna")
STRANGERS = [Identity.from_seed(b"mem-stranger-%d" % i) for i in range(RELAYED_AUTHORS_KEPT + 40)]


def _room() -> ChatRoom:
    r = ChatRoom(ME, GID, "me", 0.0)
    r.set_members({ME.public_key: ("me", PLAYER), ANNA.public_key: ("Anna", PLAYER)})
    return r


def _line(who: Identity, seq: int = 1, signer: Identity | None = None) -> bytes:
    return seal(signer or who, MSG_CHAT, [GID, who.public_key, seq, "x", "ciao"])


def test_lines_that_never_verify_leave_no_author_behind():
    r = _room()
    for i, who in enumerate(STRANGERS):
        assert r.receive(_line(who, signer=ANNA), i * 0.1, relayed=True, relayed_role=SPECTATOR) is None
    assert r.stats["bad_signature"] == len(STRANGERS) and r.authors_kept == 0


def test_relayed_authors_are_bounded_the_oldest_forgotten_members_never():
    r = _room()
    t = 0.0
    assert r.receive(_line(ANNA, 5), t) is not None
    for who in STRANGERS:
        t += 0.1
        assert r.receive(_line(who), t, relayed=True, relayed_role=SPECTATOR) is not None
    assert r.authors_kept == 1 + RELAYED_AUTHORS_KEPT
    t += 0.1
    assert r.receive(_line(ANNA, 5), t) is None and r.stats["replayed"] == 1  # a member's seq stays
    assert r.receive(_line(STRANGERS[-1]), t + 0.1, relayed=True) is None and r.stats["replayed"] == 2
    # The first relayed author was forgotten: its old line shows once more (§N9 'What does not').
    assert r.receive(_line(STRANGERS[0]), t + 0.2, relayed=True) is not None


def test_a_relayed_author_kept_is_still_rate_limited():
    r = _room()
    who = STRANGERS[0]
    shown = [r.receive(_line(who, seq), 0.0, relayed=True) is not None for seq in range(1, 8)]
    assert shown == [True] * 5 + [False] * 2 and r.stats["flood"] == 2


@settings(max_examples=30, deadline=None)
@given(ops=st.lists(st.tuples(st.integers(0, len(STRANGERS) - 1), st.booleans()), max_size=300))
def test_authors_kept_never_exceed_the_members_plus_the_bound(ops):
    """Whatever mix of good and forged relayed lines arrives, the room keeps at most the
    members plus RELAYED_AUTHORS_KEPT authors."""
    r = _room()
    for i, (who, forged) in enumerate(ops):
        r.receive(_line(STRANGERS[who], i + 1, ANNA if forged else None), i * 0.05, relayed=True)
        assert r.authors_kept <= 2 + RELAYED_AUTHORS_KEPT


def test_a_flood_of_machines_forgets_full_buckets_before_a_machine_that_spoke():
    """§N9 check 6 ('machine_flood'): at most 64 machine (IP) buckets are kept; past it the ones
    full again are forgotten first (they would start full anyway), so a flood of new machines
    cannot hand a machine that spoke its fill a fresh burst while full ones are kept. (A least
    recently used order, ``ratelimit.bucket_in``'s, would forget that machine here: it spoke
    first; its next author would then get 5 lines instead of 1.)"""
    r = _room()
    one, two = STRANGERS[0], STRANGERS[1]
    for seq in range(1, 6):  # machine M's first author says its burst: M's bucket is empty
        assert r.receive(_line(one, seq), 0.0, relayed=True, relayed_role=SPECTATOR, author=one.public_key,
                         machine="M") is not None
    for i in range(63):  # 63 other machines say one line each: the table holds 64
        who = STRANGERS[2 + i]
        assert r.receive(_line(who), 1.0, relayed=True, relayed_role=SPECTATOR, author=who.public_key,
                         machine=f"ip{i}") is not None
    new = STRANGERS[65]  # at t = 3 s the 63 are full again, M holds 1.5 tokens; a 65th machine
    assert r.receive(_line(new), 3.0, relayed=True, relayed_role=SPECTATOR, author=new.public_key,
                     machine="X") is not None
    shown = [r.receive(_line(two, seq), 3.0, relayed=True, relayed_role=SPECTATOR, author=two.public_key,
                       machine="M") for seq in range(1, 6)]
    assert sum(x is not None for x in shown) == 1 and r.stats["machine_flood"] == 4
