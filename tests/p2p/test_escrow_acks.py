"""The escrow confirmation rule (p2p/escrow_acks.py; protocol.md §C8.2; the
'equivocating dealer' row): confirmed only when every recipient acknowledged one hash, never
after two different hashes, and the same answer whatever order the acknowledgements arrive in."""

from __future__ import annotations

from hypothesis import given, strategies as st

from p2p.escrow_acks import EQUIVOCATED, AckLedger, EscrowAck as Ack, escrow_hash, escrow_round

E1, E2 = b"escrow one", b"escrow two"


def _ledger(n=4, active=None):
    led = AckLedger(n)
    led.open_epoch(0, active or [True] * n)
    return led


def test_confirmed_once_every_recipient_acknowledged_the_same_hash():
    led = _ledger()
    h = escrow_hash(E1)
    led.add(0, [Ack(3, 0, h)])
    led.add(1, [Ack(3, 0, h)])
    assert led.status(3, 0) is None and not led.confirmed(3, 0, E1)
    led.add(2, [Ack(3, 0, h)])
    assert led.status(3, 0) == h
    assert led.confirmed(3, 0, E1) and not led.confirmed(3, 0, E2) and not led.confirmed(3, 0, None)


def test_two_hashes_are_an_equivocation_for_good():
    led = _ledger()
    assert led.add(0, [Ack(3, 0, escrow_hash(E1))]) == []
    assert led.add(1, [Ack(3, 0, escrow_hash(E2))]) == [(3, 0)]
    assert led.add(2, [Ack(3, 0, escrow_hash(E2))]) == []  # reported once
    assert led.status(3, 0) == EQUIVOCATED
    assert not led.confirmed(3, 0, E1) and not led.confirmed(3, 0, E2)


def test_dealer_non_recipients_unknown_epochs_and_second_acks_are_ignored():
    led = _ledger(4, [True, True, True, False])  # seat 3 dropped before epoch 0 began (test setup)
    h = escrow_hash(E1)
    led.add(0, [Ack(0, 0, escrow_hash(E2))])  # the dealer acknowledging itself
    led.add(3, [Ack(0, 0, escrow_hash(E2))])  # not a recipient
    led.add(1, [Ack(0, 5, escrow_hash(E2))])  # an epoch never opened
    led.add(1, [Ack(0, 0, h)])
    led.add(1, [Ack(0, 0, escrow_hash(E2))])  # its first acknowledgement stands
    assert led.status(0, 0) is None
    led.add(2, [Ack(0, 0, h)])
    assert led.status(0, 0) == h
    assert led.recipients(3, 0) == [] and led.status(3, 0) is None  # an inactive dealer: nothing


def test_recipients_are_fixed_when_the_epoch_opens():
    led = AckLedger(5)
    led.open_epoch(1, [True, True, False, True, True])
    led.open_epoch(1, [True] * 5)  # a replay opening it again changes nothing
    assert led.recipients(0, 1) == [1, 3, 4]


@st.composite
def _deals(draw):
    n = draw(st.integers(3, 8))
    dealer = draw(st.integers(0, n - 1))
    copies = {i: draw(st.sampled_from([E1, E2])) for i in range(n) if i != dealer}
    acks = [(i, Ack(dealer, 0, escrow_hash(c))) for i, c in copies.items()]
    acks += draw(st.lists(st.tuples(st.just(dealer), st.just(Ack(dealer, 0, escrow_hash(E2)))), max_size=2))
    order = draw(st.permutations(acks))
    silent = draw(st.sets(st.sampled_from(sorted(copies)), max_size=2))
    return n, dealer, copies, order, silent


@given(_deals(), st.randoms())
def test_every_delivery_order_gives_the_same_verdict(deal, rnd):
    n, dealer, copies, order, silent = deal
    verdicts = []
    for acks in (order, rnd.sample(order, len(order))):
        led = _ledger(n)
        for seat, a in acks:
            if seat not in silent:
                led.add(seat, [a])
        verdicts.append(led.status(dealer, 0))
    assert verdicts[0] == verdicts[1]
    heard = {copies[i] for i in copies if i not in silent}
    if len(heard) > 1:
        assert verdicts[0] == EQUIVOCATED
    elif silent:
        assert verdicts[0] is None  # one silent recipient: never confirmed (§C8.5: the stand-in)
    else:
        assert verdicts[0] == escrow_hash(heard.pop())
    # An honest voter is only ever judged against the confirmed copy, which is its own.
    for i, c in copies.items():
        led = _ledger(n)
        for seat, a in order:
            if seat not in silent:
                led.add(seat, [a])
        if led.confirmed(dealer, 0, c):
            assert all(copies[j] == c for j in copies)


def test_unacked_and_the_escrow_round_rule():
    led = _ledger(3)
    active = [True] * 3
    assert escrow_round(led, 0, active, needed=True, chance=True)
    assert not escrow_round(led, 0, active, needed=False, chance=True)  # no escrow dealt
    assert not escrow_round(led, 0, active, needed=True, chance=False)  # a decision step
    assert led.unacked(1, 0, active) == [0, 2]
    for seat in range(3):
        led.add(seat, [Ack(d, 0, escrow_hash(bytes([d]))) for d in range(3) if d != seat])
    assert led.unacked(1, 0, active) == []
    assert led.all_confirmed(0, active) and not escrow_round(led, 0, active, needed=True, chance=True)
    led.end_round(0)
    assert led.rounds(0) == 1 and led.rounds(1) == 0



@given(st.integers(2, 6).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.lists(st.booleans(), min_size=n, max_size=n), min_size=1, max_size=3),
    st.lists(st.tuples(st.integers(-1, n), st.integers(-1, n), st.integers(0, 3), st.booleans()), max_size=30),
    st.lists(st.booleans(), min_size=n, max_size=n))))
def test_the_ledgers_kept_answers_match_their_definitions(case):
    """``recipients``, ``recipients_of``, ``unacked`` and ``status`` (kept per seat and epoch so a
    step costs a look-up) give what their definitions say from the epochs opened and the acks
    applied, whatever is asked before an epoch opens or after it (epoch 3 is asked, never opened)."""
    n, epochs, adds, now = case
    led = AckLedger(n)
    opened: dict[int, list[bool]] = {}

    def check():
        for e in range(4):
            act = opened.get(e)
            for s in range(n):
                rec = [d for d in range(n) if d != s and act[d]] if act and act[s] else []
                assert led.recipients_of(s, e) == rec and led.recipients(s, e) == rec
                assert led.unacked(s, e, now) == [d for d in rec if now[d] and not led.acked(s, d, e)]
                want, held = led.recipients(s, e), led.acks_of(s, e)
                if led.status(s, e) != EQUIVOCATED:
                    assert led.status(s, e) == (held[want[0]] if want and all(r in held for r in want) else None)
            assert led.recipients(-1, e) == [] and led.recipients(n, e) == []

    check()
    for e, act in enumerate(epochs):
        led.open_epoch(e, act)
        opened[e] = act
        check()
        for seat, dealer, epoch, one in adds:
            if 0 <= seat < n:
                led.add(seat, [Ack(dealer, epoch, escrow_hash(E1 if one else E2))])
        check()


@given(st.integers(2, 5).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.integers(0, 1), st.booleans()),
             max_size=25))))
def test_a_confirmed_status_is_final_so_the_kept_answer_is_a_fresh_ledgers(case):
    """``status`` keeps a CONFIRMED answer (asked before every step): asked after every ack, it
    is what a fresh ledger given the same epochs and acks answers (nothing asked before), so
    no later ack (a second one, a different hash, a non-recipient's) changes a confirmed one."""
    n, adds = case
    act = [True] * n
    led = AckLedger(n)
    led.open_epoch(0, act)
    led.open_epoch(1, act[:-1] + [False])
    done = []
    for seat, dealer, epoch, one in adds:
        led.add(seat, [Ack(dealer, epoch, escrow_hash(E1 if one else E2))])
        done.append((seat, dealer, epoch, one))
        fresh = AckLedger(n)
        fresh.open_epoch(0, act)
        fresh.open_epoch(1, act[:-1] + [False])
        for s, d, e, o in done:
            fresh.add(s, [Ack(d, e, escrow_hash(E1 if o else E2))])
        for d in range(n):
            for e in (0, 1):
                assert led.status(d, e) == fresh.status(d, e)
        assert led.all_confirmed(0, act) == fresh.all_confirmed(0, act)
