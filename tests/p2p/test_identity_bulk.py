"""``p2p.identity.verify_many`` (issue 14): the signatures of a batch checked on every core give,
item for item and in order, exactly ``verify``'s answers (protocol.md §C2), for any mix of good,
corrupted and malformed signatures; what it remembers only ever makes ``verify`` say True of a
signature that verifies."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import p2p.identity as identity
from p2p.identity import BULK_MIN, Identity, verify, verify_many

IDS = [Identity.from_seed(bytes([i])) for i in range(3)]
SMALL_ORDER_KEY = (1).to_bytes(32, "little")  # the neutral point: libsodium refuses it


@st.composite
def items(draw):
    """One (public_key, domain, body, sig): a good signature or one of the ways to spoil it."""
    who = draw(st.sampled_from(IDS))
    domain = draw(st.sampled_from([b"step", b"drop", b"catchup_resp"]))
    body = draw(st.binary(max_size=120))
    sig = who.sign(domain, body)
    how = draw(st.sampled_from(["good", "good", "flip", "domain", "body", "key", "short_sig", "long_key",
                                "small_order", "junk"]))
    pk = who.public_key
    if how == "flip":
        bit = draw(st.integers(0, 64 * 8 - 1))
        sig = bytearray(sig)
        sig[bit // 8] ^= 1 << (bit % 8)
        sig = bytes(sig)
    elif how == "domain":
        domain = b"step" if domain != b"step" else b"drop"
    elif how == "body":
        body += b"\x00"
    elif how == "key":
        pk = IDS[(IDS.index(who) + 1) % len(IDS)].public_key
    elif how == "short_sig":
        sig = sig[:draw(st.integers(0, 63))]
    elif how == "long_key":
        pk += b"\x00"
    elif how == "small_order":
        pk = SMALL_ORDER_KEY
    elif how == "junk":
        pk, sig = draw(st.binary(min_size=32, max_size=32)), draw(st.binary(min_size=64, max_size=64))
    return pk, domain, body, sig


@settings(max_examples=80, deadline=None)
@given(batch=st.lists(items(), max_size=3 * BULK_MIN + 5))
def test_same_answers_as_verify_one_by_one(batch):
    expected = [verify(*it) for it in batch]
    assert verify_many(batch) == expected
    assert verify_many(iter(batch)) == expected  # any iterable, read once
    assert [verify(*it) for it in batch] == expected  # what it remembered changes no answer


def test_a_long_batch_keeps_its_order():
    ident = IDS[0]
    batch = []
    for j in range(10 * BULK_MIN):
        body = b"long batch %d" % j
        sig = ident.sign(b"step", body)
        batch.append((ident.public_key, b"step", body, sig if j % 7 else sig[:63] + bytes([sig[63] ^ 1])))
    assert verify_many(batch) == [j % 7 != 0 for j in range(10 * BULK_MIN)]


@pytest.mark.parametrize("size", [1, BULK_MIN, 4 * BULK_MIN])
def test_raises_where_verify_raises(size):
    ident = IDS[1]
    good = (ident.public_key, b"step", b"x", ident.sign(b"step", b"x"))
    with pytest.raises(TypeError):
        verify(None, b"step", b"x", good[3])
    with pytest.raises(TypeError):
        verify_many([good] * (size - 1) + [(None, b"step", b"x", good[3])])


def test_remembers_only_good_signatures_and_a_bounded_number(monkeypatch):
    monkeypatch.setattr(identity, "GOOD_KEPT", 5)
    ident = IDS[2]
    good = [(ident.public_key, b"step", b"kept %d" % j, ident.sign(b"step", b"kept %d" % j)) for j in range(12)]
    bad = [(pk, d, b + b"!", s) for pk, d, b, s in good]
    assert verify_many(good + bad) == [True] * 12 + [False] * 12
    assert len(identity._good) <= 5
    assert all(it not in identity._good for it in bad)
    assert all(it in identity._good for it in good[-5:])  # the newest are kept
    assert [verify(*it) for it in bad] == [False] * 12
    assert [verify(*it) for it in good] == [True] * 12  # remembered or checked again: the same
    assert not identity._good  # each used once


def test_a_mutable_argument_is_checked_not_remembered():
    ident = IDS[0]
    body = bytearray(b"mutable body")
    sig = ident.sign(b"step", bytes(body))
    assert verify_many([(ident.public_key, b"step", body, sig)] * BULK_MIN) == [True] * BULK_MIN
    body[0] ^= 1  # the same object now says something else: it must not be answered from memory
    assert verify(ident.public_key, b"step", body, sig) is False


class _Raises:
    """A 'key' whose length cannot be read: ``verify`` lets the exception through."""

    def __init__(self, exc):
        self.exc = exc

    def __len__(self):
        raise self.exc


@pytest.mark.parametrize("first,second", [(3, 25), (25, 3), (17, 18)])
def test_the_first_raising_item_decides_the_exception(first, second):
    """ZeroDivisionError at ``first``, KeyError at ``second``: the earlier one is raised."""
    ident = IDS[0]
    good = (ident.public_key, b"step", b"x", ident.sign(b"step", b"x"))
    batch = [good] * 40
    batch[first] = (_Raises(ZeroDivisionError()), b"step", b"x", good[3])
    batch[second] = (_Raises(KeyError()), b"step", b"x", good[3])
    with pytest.raises(ZeroDivisionError if first < second else KeyError):
        [verify(*it) for it in batch]
    with pytest.raises(ZeroDivisionError if first < second else KeyError):
        verify_many(batch)


def test_two_threads_calling_at_once_get_their_own_answers():
    from concurrent.futures import ThreadPoolExecutor

    ident = IDS[1]
    batches = [[(ident.public_key, b"step", b"%d/%d" % (t, j), ident.sign(b"step", b"%d/%d" % (t, j ^ (t & 1))))
                for j in range(3 * BULK_MIN)] for t in range(4)]
    expected = [[verify(*it) for it in b] for b in batches]
    with ThreadPoolExecutor(4) as ex:
        assert list(ex.map(verify_many, batches)) == expected


def test_forget_changes_no_answer():
    ident = IDS[2]
    batch = [(ident.public_key, b"step", b"forget %d" % j, ident.sign(b"step", b"forget %d" % j))
             for j in range(BULK_MIN)]
    assert verify_many(batch) == [True] * BULK_MIN
    assert all(it in identity._good for it in batch)
    identity.forget()
    assert not identity._good
    assert [verify(*it) for it in batch] == [True] * BULK_MIN


@pytest.mark.parametrize("keep", [False, True])
def test_an_answer_is_used_once_unless_kept(keep, monkeypatch):
    monkeypatch.setattr(identity, "_good", {})
    ident = IDS[0]
    batch = [(ident.public_key, b"step", b"once %d" % j, ident.sign(b"step", b"once %d" % j))
             for j in range(BULK_MIN)]
    assert verify_many(batch, keep=keep) == [True] * BULK_MIN
    assert len(identity._good) == BULK_MIN
    assert [verify(*it) for it in batch] == [True] * BULK_MIN
    assert len(identity._good) == (BULK_MIN if keep else 0)  # a peer's memory stays flat
    assert [verify(*it) for it in batch] == [True] * BULK_MIN  # checked again, or still kept
    verify_many(batch)  # a later batch without keep does not take the keep away
    assert len(identity._good) == BULK_MIN
    assert all(identity._good[it] is keep for it in batch)


def test_a_forked_child_checks_batches_with_a_pool_of_its_own():
    import os

    if not hasattr(os, "fork"):
        pytest.skip("no fork on this platform")
    ident = IDS[1]
    batch = [(ident.public_key, b"step", b"fork %d" % j, ident.sign(b"step", b"fork %d" % j))
             for j in range(BULK_MIN)]
    assert verify_many(batch) == [True] * BULK_MIN  # the parent's pool exists now
    with identity._good_lock:  # held by the parent at the fork: the child must not inherit it held
        pid = os.fork()
    if pid == 0:  # the child: exit code 0 only if its batch checks out
        import signal

        signal.signal(signal.SIGALRM, lambda *_: os._exit(2))  # a lock inherited held: exit 2
        signal.alarm(30)
        ok = verify_many(batch + [(ident.public_key, b"step", b"fork", b"\0" * 64)]) == [True] * BULK_MIN + [False]
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_busy_worker_is_not_waited_for():
    """Every worker thread stuck elsewhere (here: blocked on an event): the caller checks the
    whole batch itself and returns; nothing waits for the stuck threads."""
    import threading

    ident = IDS[2]
    batch = [(ident.public_key, b"step", b"busy %d" % j, ident.sign(b"step", b"busy %d" % j))
             for j in range(4 * BULK_MIN)]
    batch[5] = batch[5][:3] + (bytes(64),)
    pool = identity._workers()
    if pool is None:
        pytest.skip("one core: no worker threads")
    release = threading.Event()
    stuck = [pool.submit(release.wait, 30) for _ in range(identity._parts - 1)]
    try:
        assert verify_many(batch) == [j != 5 for j in range(4 * BULK_MIN)]
    finally:
        release.set()
    assert all(f.result() for f in stuck)
