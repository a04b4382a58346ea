"""Hidden-information faults judged on their own, seat by seat (protocol.md §C12.4, §C12.5,
§C8.8 kind 4; issue 10 "A proven cheater loses its seat").

``HiddenLedger.find_fault`` names the culprit of a step and the seat whose signed STEP shows it
(the *witness*: the culprit's own message, or the holder's whose published key opens a wrong
delivery); ``judge_field`` gives the same verdict from that one message, as a kind-4 COMPLAINT's
judge does; ``complaints.check_hidden`` is that judge. Checked here without a network, on the
start deal of a real niente-e-come-sembra game (every seat owes every other its start wallet at
step 0), and by a property test: whatever single seat lies in its field, in whatever way, the
culprit named is that seat, never an honest one. The table: tests/p2p/hidden_faults_kit.py; in a
session: tests/p2p/test_hidden_faults_session.py.
"""

from __future__ import annotations

import hashlib

from hypothesis import HealthCheck, given, settings, strategies as st

from p2p.complaints import BAD_HIDDEN, HiddenNow, StepNow, check_bad_step, check_hidden, judge
from p2p.hidden import OPEN_LEN, TAG_LEN, delivery_key, hidden_secret
from p2p.wire import MSG_STEP, ComplaintMsg, decode_step_body, open_envelope, seal

from hidden_faults_kit import (GID, HS, IDS, INSPECTION, N, SETUP, STATE, apply, honest_fields, step_raw, table,
                               wrong_delivery)


def test_honest_start_deal_and_inspection_have_no_fault():
    """§C12.3: every seat owes every other its start wallet at step 0; honest fields pass, also
    at an inspection step."""
    led, views = table()
    assert led.find_fault(honest_fields(views, 0), None) is None
    assert led.find_fault(honest_fields(views, 0, INSPECTION), INSPECTION) is None


def test_public_faults_name_the_signer_as_culprit_and_witness():
    """§C12.4/§C12.5: a wrong opening, withheld openings, openings outside an inspection, a
    missing delivery: the seat that signed the field is guilty, its own message the evidence."""
    led, views = table()
    cases = []
    f = honest_fields(views, 0, INSPECTION)
    f[2][1] = bytes([f[2][1][0] ^ 1]) + f[2][1][1:]
    cases.append((f, INSPECTION, 2, "opening of bill 3 does not match its commitment"))
    f = honest_fields(views, 0, INSPECTION)
    f[1][1] = f[1][1][:OPEN_LEN]
    cases.append((f, INSPECTION, 1, "withheld its openings at an inspection"))
    f = honest_fields(views, 0)
    f[3][1] = views[3].my_field(0, INSPECTION)[1]
    cases.append((f, None, 3, "openings outside an inspection step"))
    f = honest_fields(views, 0)
    f[0][0] = f[0][0][1:]
    cases.append((f, None, 0, "private deliveries differ from what it owes (receivers or counts)"))
    for fields, insp, culprit, reason in cases:
        fault = led.find_fault(fields, insp)
        assert fault == (culprit, reason, culprit)
        assert led.judge_field(culprit, fields[culprit], insp) == fault
        assert all(led.judge_field(s, fields[s], insp) is None for s in range(N) if s != culprit)


def test_wrong_delivery_is_proven_by_the_holder_and_the_witness_is_the_holder():
    """§C12.4: seat 1 delivers zeros to seat 2 at step 0; seat 2's view files [1, key] in its
    step-1 field; the step-1 verdict names the sender, with the holder's message as witness."""
    led, views = table()
    fields = honest_fields(views, 0)
    fields[1] = wrong_delivery(views, 1, 2, 0)
    assert led.find_fault(fields, None) is None  # the shape is right: only the holder can tell
    apply(led, views, 0, fields)
    assert views[2].complaint is not None and views[2].complaint[0] == 1
    step1 = honest_fields(views, 1)
    fault = led.find_fault(step1, None)
    assert fault == (1, "private delivery to seat 2 does not match its commitment (item 0)", 2) or \
        (fault.seat, fault.witness) == (1, 2) and "private delivery to seat 2" in fault.reason
    assert led.judge_field(2, step1[2], None) == fault


def test_false_complaint_names_the_complainer():
    """A holder that publishes the key of a correct delivery is the culprit (§C12.4)."""
    led, views = table()
    apply(led, views, 0, honest_fields(views, 0))
    step1 = honest_fields(views, 1)
    key = delivery_key(IDS[2].x25519_exchange(IDS[0].x25519_public_key), GID, 0, 2, 0)
    step1[2][2] = [0, key]
    assert led.find_fault(step1, None) == (2, "false complaint: the delivery matches its commitment", 2)
    step1[2][2] = [0, bytes(32)]
    assert led.find_fault(step1, None) is None  # a key that opens nothing: see the re-opening test
    step1[2][2] = [2, key]
    assert led.find_fault(step1, None) == (2, "complaint about a delivery that does not exist", 2)


def test_a_key_that_opens_nothing_makes_the_sender_open_in_public():
    """§C12.4: seat 1 seals its start deal to seat 2 under another key; seat 2's complaint
    publishes the right key, which opens nothing. Nobody can tell whose key is wrong (X25519
    is not publicly checkable), so nobody is convicted (a sender cannot frame an honest holder,
    nor a holder a sender); seat 1 owes those items in public at the next step, after any
    inspection openings: opened, seat 2 learns its shares; withheld or wrong, seat 1 is
    proven."""
    led, views = table()
    fields = honest_fields(views, 0)
    fields[1] = wrong_delivery(views, 1, 2, 0, foreign=True)
    apply(led, views, 0, fields)
    assert views[2].complaint is not None and views[2].complaint[0] == 1
    step1 = honest_fields(views, 1)
    assert led.find_fault(step1, None) is None
    apply(led, views, 1, step1)
    owed = led.reopen[1]
    assert [to for to, _ in owed] == [2] and len(owed[0][1]) == 12  # seat 2's start wallet
    step2 = honest_fields(views, 2, INSPECTION)
    assert len(step2[1][1]) == OPEN_LEN * (len(INSPECTION) + 12)
    assert led.find_fault(step2, INSPECTION) is None
    withheld = [list(f) for f in step2]
    withheld[1][1] = withheld[1][1][:OPEN_LEN * len(INSPECTION)]
    assert led.find_fault(withheld, INSPECTION) == (1, "withheld its openings at an inspection", 1)
    assert led.find_fault([f if i != 1 else [f[0], f[1][:0], f[2]] for i, f in enumerate(honest_fields(views, 2))],
                          None) == (1, "withheld the public opening it owes", 1)
    wrong = [list(f) for f in step2]
    wrong[1][1] = wrong[1][1][:-1] + bytes([wrong[1][1][-1] ^ 1])
    assert led.find_fault(wrong, INSPECTION).reason.startswith("public opening of item")
    items = owed[0][1]
    assert not any(("bill", t) in views[2].status() for t in items)
    apply(led, views, 2, step2)
    views[2].refresh(STATE)
    assert all(("bill", t) in views[2].status() for t in items)
    assert led.reopen == {}


def test_a_complaint_against_a_seat_dropped_since_is_settled():
    """The sender proven by the holder's complaint is dropped at that step: re-judged after the
    drop, the complaint proves nothing new (the sender is out), so the step goes on (§C12.6)."""
    led, views = table()
    fields = honest_fields(views, 0)
    fields[1] = wrong_delivery(views, 1, 2, 0)
    apply(led, views, 0, fields)
    step1 = honest_fields(views, 1)
    assert led.find_fault(step1, None).seat == 1
    led.drop(1, hidden_secret(HS[1]))
    step1[1] = None
    assert led.find_fault(step1, None) is None


def test_a_drop_during_a_step_keeps_that_steps_deliveries():
    """§C12.6: messages of step k signed before seat 3 was dropped at k owe seat 3 its start
    wallet; they stay valid, and after the step nothing is owed to or by seat 3."""
    led, views = table()
    signed_before = honest_fields(views, 0)
    led.drop(3, None)
    assert [d[0] for d in views[0].my_field(0, None)[0]] == [1, 2, 3]
    signed_before[3] = None
    assert led.find_fault(signed_before, None) is None
    led.after_step(0, signed_before, STATE)
    assert all(not q for q in led.queues[3]) and all(not row[3] for row in led.queues)


def test_check_hidden_judges_the_evidence_at_its_step_only():
    """Kind 4 (§C8.8): at the step, over the same history, the field's verdict; another step or
    history, or a valid field: nothing proven (never the complainer); a different body of the
    seat for that step that we hold: equivocation."""
    led, views = table()
    fields = honest_fields(views, 0, INSPECTION)
    honest_raw = step_raw(2, 0, fields[2])
    fields[2][1] = bytes(OPEN_LEN) + fields[2][1][OPEN_LEN:]
    raw = step_raw(2, 0, fields[2])
    zero = (b"\x00" * 32, b"\x00" * 32)
    now = HiddenNow(0, *zero, led, INSPECTION)
    assert check_hidden(SETUP, raw, None, now) == (2, "opening of bill 3 does not match its commitment")
    assert check_hidden(SETUP, honest_raw, None, now) is None
    assert check_hidden(SETUP, raw, None, now._replace(step=1)) is None
    assert check_hidden(SETUP, raw, None, now._replace(prev_hash=b"\x01" * 32)) is None
    assert check_hidden(SETUP, raw, None, None) is None
    held = open_envelope(honest_raw).body
    assert check_hidden(SETUP, raw, held, None) == (2, "signed two different messages for one step")
    other = seal(IDS[2], MSG_STEP, [GID, 0, 2, b"\x01" * 32, b"\x00" * 32, None, fields[2]])
    assert check_hidden(SETUP, raw, open_envelope(other).body, now) is None
    bare = seal(IDS[3], MSG_STEP, [GID, 0, 3, *zero, None])  # no 7th field in a hidden game
    assert check_hidden(SETUP, bare, None, now) == (3, "no hidden-information field in a game with hidden "
                                                       "information")
    assert check_hidden(SETUP, bare, None, None) is None
    forged = bytearray(raw)
    forged[-1] ^= 1
    assert check_hidden(SETUP, bytes(forged), None, now) is None
    # judge() routes kind 4 to the caller's judge, and to nothing without one.
    c = ComplaintMsg(GID, 0, 0, 2, BAD_HIDDEN, (raw,), None)
    assert judge(SETUP, c, [True] * N, None, lambda r: check_hidden(SETUP, r, None, now))[0] == 2
    assert judge(SETUP, c, [True] * N, None) is None



def test_check_bad_step_judges_a_reveal_at_its_step_and_a_message_past_it():
    """Kind 2 (§C8.8), the judging moved out of the session (``complaints.check_bad_step``): at
    a chance step over the judge's history the input must be a reveal hashing to the seat's
    previous reveal; at a sealed open step the sealed judge decides; past the step, the held
    body decides (different: equivocation; the same: the complainer lied); another history or
    step proves nothing."""
    zero = (b"\x00" * 32, b"\x00" * 32)
    prev = hashlib.sha256(b"r" * 32).digest()
    good = seal(IDS[1], MSG_STEP, [GID, 5, 1, *zero, b"r" * 32])
    nil = seal(IDS[1], MSG_STEP, [GID, 5, 1, *zero, None])
    wrong = seal(IDS[1], MSG_STEP, [GID, 5, 1, *zero, b"x" * 32])
    reveals = [b""] * N
    reveals[1] = prev
    now = StepNow(5, *zero, None, reveals)
    assert check_bad_step(SETUP, good, 0, None, now) is None
    assert check_bad_step(SETUP, nil, 0, None, now) == (1, "no reveal at a chance step")
    assert check_bad_step(SETUP, wrong, 0, None, now) == (1, "reveal does not hash to the previous reveal")
    assert check_bad_step(SETUP, wrong, 0, None, now._replace(reveals=None)) is None  # not a chance step
    assert check_bad_step(SETUP, wrong, 0, None, now._replace(prev_digest=b"\x01" * 32)) is None
    assert check_bad_step(SETUP, wrong, 0, None, now._replace(sealed=lambda b: (b.seat, "sealed"))) == (1, "sealed")
    past = now._replace(step=6)
    assert check_bad_step(SETUP, nil, 0, open_envelope(good).body, past) == \
        (1, "signed two different messages for one step")
    assert check_bad_step(SETUP, nil, 0, open_envelope(nil).body, past) == \
        (0, "false complaint: we applied that very message")
    assert check_bad_step(SETUP, nil, 0, None, past) is None
    other = seal(IDS[1], MSG_STEP, [GID, 5, 1, b"\x02" * 32, zero[1], b"r" * 32])
    assert check_bad_step(SETUP, nil, 0, open_envelope(other).body, past) is None


LIES = ("flip_opening", "short_openings", "extra_openings", "drop_delivery", "pad_delivery", "extra_receiver",
        "wrong_delivery", "foreign_key", "false_complaint", "junk_key", "no_field")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(liar=st.integers(0, N - 1), lie=st.sampled_from(LIES), pick=st.integers(0, 10 ** 6),
       inspect=st.booleans())
def test_any_single_seat_lie_convicts_exactly_the_liar(liar, lie, pick, inspect):
    """Property (issue 10): one seat alters its hidden field of step 0 or 1 in any of the ways
    above; every honest field is untouched. The step's verdict (``find_fault``) names the liar,
    and ``judge_field`` of every honest seat's message is None; a lie in a private delivery is
    only seen by the holder, whose complaint of step 1 convicts the liar. The one lie nobody
    can attribute — a key that opens nothing, the holder's junk or the sender's foreign key —
    convicts nobody and makes the sender open in public at step 2: the liar sender that
    withholds it is convicted then, the honest one opens and nobody is out."""
    led, views = table()
    insp = INSPECTION if inspect else None
    fields = honest_fields(views, 0, insp)
    f = fields[liar]
    others = [s for s in range(N) if s != liar]
    to = others[pick % len(others)]
    later = None  # (step-1 fields) when the lie shows only at the next step
    if lie == "flip_opening":
        if not inspect:
            return
        i = pick % len(INSPECTION)
        f[1] = f[1][:OPEN_LEN * i] + bytes([f[1][OPEN_LEN * i + pick % OPEN_LEN] ^ 1 << pick % 8]).join(
            [f[1][OPEN_LEN * i:OPEN_LEN * i + pick % OPEN_LEN], f[1][OPEN_LEN * i + pick % OPEN_LEN + 1:]])
    elif lie == "short_openings":
        if not inspect:
            return
        f[1] = f[1][:OPEN_LEN * (pick % len(INSPECTION))]
    elif lie == "extra_openings":
        f[1] = f[1] + bytes(OPEN_LEN)
    elif lie == "drop_delivery":
        f[0] = [d for d in f[0] if d[0] != to]
    elif lie == "pad_delivery":
        for d in f[0]:
            if d[0] == to:
                d[1] = d[1] + bytes(OPEN_LEN)
    elif lie == "extra_receiver":
        f[0] = sorted(f[0] + [[liar, bytes(TAG_LEN + OPEN_LEN)]], key=lambda d: d[0])
    elif lie == "no_field":
        fields[liar] = None
    else:
        if lie in ("wrong_delivery", "foreign_key"):
            fields[liar] = wrong_delivery(views, liar, to, 0, foreign=lie == "foreign_key")
            fields[liar][1] = f[1]
        assert led.find_fault(fields, insp) is None
        apply(led, views, 0, fields)
        later = honest_fields(views, 1)
        if lie in ("false_complaint", "junk_key"):
            key = delivery_key(IDS[liar].x25519_exchange(IDS[to].x25519_public_key), GID, to, liar, 0)
            later[liar][2] = [to, key if lie == "false_complaint" else bytes(32)]
        fields, insp, at = later, None, 1
        if lie in ("junk_key", "foreign_key"):
            # A key that opens nothing proves nothing; the sender opens in public at step 2.
            assert led.find_fault(fields, None) is None
            apply(led, views, 1, fields)
            fields, at = honest_fields(views, 2), 2
            if lie == "junk_key":
                assert led.find_fault(fields, None) is None  # the honest sender opened: nobody is out
                return
            fields[liar][1] = b""  # the liar withholds what it owes
    fault = led.find_fault(fields, insp)
    assert fault is not None and fault.seat == liar
    assert fault.witness == (to if lie == "wrong_delivery" else liar)
    for s in others:
        if lie != "wrong_delivery" or s != to:
            assert led.judge_field(s, fields[s], insp) is None
    assert led.judge_field(fault.witness, fields[fault.witness], insp) == fault
    if fields[fault.witness] is not None:
        raw = step_raw(fault.witness, 0 if later is None else at, fields[fault.witness])
        now = HiddenNow(0 if later is None else at, b"\x00" * 32, b"\x00" * 32, led, insp)
        assert check_hidden(SETUP, raw, None, now) == (fault.seat, fault.reason)
        assert decode_step_body(open_envelope(raw).body).hidden is not None
