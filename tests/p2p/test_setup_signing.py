"""p2p/setup_signing.SetupSigning: what a checked SETUP_SIG/SEED means (protocol.md §C2.3-§C2.5):
duplicates change nothing, two different signatures of one seat are equivocation, messages
before the PROPOSAL are held one per source and type within bounds."""

from __future__ import annotations

from p2p import const as C
from p2p.identity import Identity
from p2p.setup_signing import DUPLICATE, EQUIVOCATION, MALFORMED, SIGNED, SetupSigning
from p2p.wire import MSG_SETUP_SIG, SetupSig, open_envelope, seal_message

GID = bytes(range(16))
ME = Identity.from_seed(b"setup-signing-test")


def sig_env(seat: int, setup_hash: bytes, leaves: bytes | None = None):
    return open_envelope(seal_message(ME, MSG_SETUP_SIG, SetupSig(GID, seat, setup_hash, leaves)))


def test_a_seat_signs_once_the_same_again_is_a_duplicate_another_is_equivocation():
    sg = SetupSigning()  # no setup started: an edition without hidden information
    assert sg.add_sig(1, sig_env(1, b"h" * 32), None) == SIGNED
    assert sg.add_sig(1, sig_env(1, b"h" * 32), None) == DUPLICATE
    assert sg.add_sig(1, sig_env(1, b"g" * 32), None) == EQUIVOCATION
    assert not sg.all_signed(2)
    sg.signed_by_us(0, sig_env(0, b"h" * 32).raw)
    assert sg.all_signed(2) and sg.missing(2, revealing=False) == []


def test_leaves_where_the_edition_has_no_hidden_information_are_malformed():
    sg = SetupSigning()
    assert sg.add_sig(1, sig_env(1, b"h" * 32, b"x" * 32), b"x" * 32) == MALFORMED
    assert sg.missing(2, revealing=False) == [0, 1]
    assert sg.seed_fits(None, 2) and not sg.seed_fits((b"d" * 32, b"d" * 32), 2)


def test_seeds_the_first_counts_and_the_game_seed_is_in_seat_order():
    from p2p.beacon import game_seed

    sg = SetupSigning()
    sg.add_seed(1, b"raw1", b"b" * 32, None)
    sg.add_seed(0, b"raw0", b"a" * 32, None)
    sg.add_seed(1, b"other", b"c" * 32, None)  # the first one counts
    assert sg.all_revealed(2) and sg.disagreement(0, 2) is None
    assert sg.game_seed(2) == game_seed([b"a" * 32, b"b" * 32])
    sg.signed_by_us(0, b"s0")
    sg.signed_by_us(1, b"s1")
    assert sg.header_envelopes(2) == ([b"s0", b"s1"], [b"raw0", b"raw1"])


def test_seats_that_hold_other_leaves_digests_are_named():
    sg = SetupSigning()
    sg.add_seed(0, b"r0", b"a" * 32, (b"1", b"2", b"3"))
    sg.add_seed(1, b"r1", b"b" * 32, (b"1", b"2", b"3"))
    sg.add_seed(2, b"r2", b"c" * 32, (b"1", b"X", b"3"))
    assert sg.disagreement(0, 3) == (2, [1], b"r2")


def test_early_messages_one_per_source_and_type_plain_sources_bounded_apart():
    """§C2.2: before the PROPOSAL nothing can be checked; a source is the channel's X25519 key
    (keyed) or the address (plain); plain sources hold at most a quarter of EARLY_BUFFER and
    never push keyed ones out."""
    sg = SetupSigning()
    env = sig_env(1, b"h" * 32)
    assert sg.hold_early(env, None, ("a", 1), b"k" * 32) == []
    assert sg.hold_early(env, None, ("a", 1), b"k" * 32) == ["buffer_replaced"]
    drops = []
    for port in range(C.EARLY_BUFFER // 4 + 3):
        drops += sg.hold_early(env, None, ("p", port), None)
    assert drops == ["buffer_full"] * 3
    early = sg.take_early()
    assert len(early) == 1 + C.EARLY_BUFFER // 4
    assert early[0][3] == b"k" * 32  # the keyed one survived the plain flood
    assert sg.take_early() == []
