"""Red team of session 6's authentication and fast-path changes (issue 14 levers must not reopen
issue 10's holes): every STEP verified on receipt whatever channel brought it (§C3.4; the deferred
checks of §C3.7 were considered and not taken, these attacks stay as their regression tests),
identity's bulk check and its memo of good signatures (``identity.verify_many``,
``p2p/bulk_verify.py``, §C9.2), and the per-key HMAC of ``channel_auth.mac``.

One test per attack, each asserting what the protocol promises (a strict xfail would name the
hole when it does not hold; the §N2.6 attack table lists each). The attacker is a lying seat
(it holds its setup keys, so its channel MAC is valid: it can send anything under it, garbage
signatures included) or a hostile laptop on the LAN (no seat's keys: it can only replay, forward
or spoof). In memory: ``KeyedNet`` lets the lying seat replace what it sends; fake engine,
virtual clock."""

from __future__ import annotations

import hmac as std_hmac
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fake_engine as E
from p2p import const as C
from p2p import identity
from p2p.channel_auth import TAG_LEN, KeyCache, mac, mac_ok
from p2p.endpoint import Endpoint
from p2p.gamelog import KIND_STEP, STEP_RECORD, LogReader
from p2p.identity import Identity
from p2p.bodies import CatchupResponse
from p2p.forced import is_forced
from p2p.lockstep import CheaterProven, PeerMisbehaved, SeatDropped
from p2p.verify import verify_log
from p2p.wire import MSG_CATCHUP_RESP, MSG_STEP, open_envelope, seal, seal_message

from p2p_harness import first_legal, random_legal, restart_overturned, started_sessions
from redteam_auth_kit import CATCHUP_RESP_TAG, STEP_TAG, KeyedNet, final_hashes, garbled, step_of
from test_resilience import crash_and_restart, finals, logged_game

DOMAIN_STEP, DOMAIN_OTHER = C.DOMAIN_STEP, C.DOMAIN_ALIVE
DROP = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 5, "target": 30}


# -- a griefer's bad records in every honest log ------------------------------------------------

def first_copy_garbled(g: int, step: int):
    """A ``KeyedNet`` lie: seat ``g``'s first copy of its ``step`` message to each peer carries a
    garbage signature, its re-sends are valid."""
    first = set()

    def lie(src, dst, raw):
        if src != g or step_of(raw).step != step or dst in first:
            return None
        first.add(dst)
        return garbled(raw)

    return lie


def test_a_restarted_honest_peer_catches_up_past_a_griefers_garbled_first_copy(tmp_path):
    """Seat 3 sends the first copy of its step-5 message to everyone with a garbage signature
    (valid MAC), its re-sends valid: every honest peer drops the first on receipt and applies a
    re-send, so no honest log holds a bad record. Honest seat 1 then crashes and restarts from
    its log: it must catch up and finish with the others, even when the griefer itself never
    answers a catch-up request. (Under the deferred checks of §C3.7, not taken, this restart was
    stuck for good until 5454ac1.)"""
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, {"target": 40})
    g = 3
    net = KeyedNet(list(sessions), random_legal(E, seed=5), lie=first_copy_garbled(g, 5))
    net.drop = lambda src, dst, raw: src == g and raw[:2] == CATCHUP_RESP_TAG  # it never serves a page
    hook, st = crash_and_restart(net, sessions, paths, secrets, seat=1, crash_step=9, down_for=3.0)
    net.run(max_time=300.0, hook=hook)
    assert net.lies and st["report"] is not None and st["report"].damage is None
    overs = finals(net)
    assert all(len(overs[i]) == 1 for i in range(3)), net.describe()
    assert len(final_hashes(net, range(4))) == 1


def test_a_peer_without_its_own_copy_of_the_griefers_step_catches_up_from_the_others(tmp_path):
    """As above, but honest seat 1's log lost every record from step 5 on (a damaged disk): it
    has no copy of the griefer's step 5. Every other honest peer holds that step validly signed
    (the garbled first copy was dropped on receipt), so they serve it (§C9.2) although the
    griefer answers no catch-up: seat 1 catches up, nobody is dropped, and the four finish one
    game. (Under the deferred checks of §C3.7 nobody could serve it and seat 1 was voted out:
    the hole that sank them.)"""
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, DROP)
    g = 3

    def lose_from_step_5(path):
        cut = next(r.offset for r in LogReader(path) if r.kind == KIND_STEP and STEP_RECORD.decode(r.payload).step >= 5)
        with open(path, "r+b") as f:
            f.truncate(cut)

    net = KeyedNet(list(sessions), random_legal(E, seed=5), lie=first_copy_garbled(g, 5))
    net.drop = lambda src, dst, raw: src == g and raw[:2] == CATCHUP_RESP_TAG
    hook, st = crash_and_restart(net, sessions, paths, secrets, seat=1, crash_step=9, down_for=1.0,
                                 mutate_log=lose_from_step_5)
    net.run(max_time=300.0, hook=hook)
    assert net.lies and st["report"] is not None and st["report"].steps <= 5
    overs = finals(net)
    assert all(len(overs[i]) == 1 for i in range(3)), net.describe()
    assert len(final_hashes(net, range(4))) == 1
    for i in range(3):
        assert [e.seat for e in net.events[i] if isinstance(e, SeatDropped)] == []
        assert {e.seat for e in net.events[i] if isinstance(e, PeerMisbehaved)} <= {g}


# -- equivocation with unsigned versions --------------------------------------------------------

def _equivocating_game(tmp_path, n: int, victims: set, alt: int, bad_real: bool, bad_second: bool):
    """Seat n - 1 equivocates at its first nil-input step >= 10 (as tests/p2p/test_decision_
    equivocation.py, but over keyed channels): the ``victims`` get a second version (input
    ``["adv", alt]``), the others the real one; ``bad_real``/``bad_second``: that version goes
    out with a garbage signature (valid MAC). A peer halted with ``StepOverturned`` restarts from
    its log cut at that step, as the node does. Returns (net, paths, restarts, step)."""
    sessions, paths, secrets, _ = logged_game(tmp_path, n, DROP)
    cheat = n - 1
    state: dict = {"step": None}

    def lie(src, dst, raw):
        if src != cheat:
            return None
        b = step_of(raw)
        if state["step"] is None:
            if b.step < 10 or b.input is not None:
                return None
            second = seal(sessions[cheat].identity, MSG_STEP,
                          [b.game_id, b.step, cheat, b.prev_hash, b.prev_digest, ["adv", alt]])
            state.update(step=b.step, real=garbled(raw) if bad_real else raw,
                         second=garbled(second) if bad_second else second)
        if b.step != state["step"]:
            return None
        return state["second"] if dst in victims else state["real"]

    net = KeyedNet(list(sessions), first_legal(E), lie=lie)
    restarts: list = []
    net.run(max_time=300.0, hook=restart_overturned(paths, secrets, restarts))
    assert state["step"] is not None
    return net, paths, restarts, state["step"]


@pytest.mark.parametrize("victims", [{0}, {0, 1}])
def test_an_unsigned_second_version_to_some_peers_loses_to_the_signed_one(tmp_path, victims):
    """The equivocator sends its real, signed message to some honest peers and a second version
    with a garbage signature to the ``victims``: the victims drop it on receipt (§C3.4), get the
    signed one from the others (§C9.2), never roll back, and every honest peer finishes the same
    game with a log that verifies complete. (Under the deferred checks of §C3.7, not taken, the
    victims applied it and, until 5007f08, got voted out by a COMPLAINT carrying it.)"""
    n = 4
    net, paths, restarts, k = _equivocating_game(tmp_path, n, victims, 7, bad_real=False, bad_second=True)
    honest = range(n - 1)
    assert restarts == [], restarts
    overs = finals(net)
    assert all(len(overs[i]) == 1 for i in honest), net.describe()
    assert len(final_hashes(net, honest)) == 1
    for i in honest:
        net.s[i].log.close()
        rep = verify_log(paths[i], engine=E)
        assert rep.ok and rep.complete, (i, rep.error)


def test_two_unsigned_versions_split_no_honest_peer_for_good(tmp_path):
    """Both versions carry a garbage signature (one to seat 0, the other to seats 1 and 2): both
    are dropped on receipt (§C3.4) and the seat, silent at that step, is voted out. The honest
    peers finish one game (one final hash), none halted."""
    n = 4
    net, paths, restarts, k = _equivocating_game(tmp_path, n, {0}, 7, bad_real=True, bad_second=True)
    honest = range(n - 1)
    assert restarts == [], restarts
    overs = finals(net)
    assert all(len(overs[i]) == 1 for i in honest), net.describe()
    assert len(final_hashes(net, honest)) == 1


# -- garbage-signed STEPs are dropped on receipt ------------------------------------------------

def _first_steps(n: int = 4):
    """``n`` started sessions and each seat's step-0 STEP envelope (not delivered)."""
    sessions = started_sessions(n, E)
    net = KeyedNet(sessions, first_legal(E))
    net.inputs()
    raws = {i: next(r for r in s.messages_to_send() if r[:2] == STEP_TAG) for i, s in enumerate(sessions)}
    return sessions, raws


def _nil_of(sessions, raws, seat: int) -> bytes:
    """``seat``'s step-0 message with input nil instead of its reveal, signed by it: not the
    forced body of that plain chance step (§C3.8), so its signature is checked on receipt."""
    b = step_of(raws[seat])
    return seal(sessions[seat].identity, MSG_STEP, [b.game_id, 0, seat, b.prev_hash, b.prev_digest, None])


def test_a_garbage_signed_step_is_dropped_on_receipt():
    """Seat 1's step-0 message (not its forced body: nil) with a garbage signature (whatever
    channel brought it: the session is not told, §C3.4 'bad signature'): dropped, counted, never
    held; the same message validly signed is then held. (A forced reveal is held whatever its
    signature, §C3.8: tests/p2p/test_forced_session.py.)"""
    sessions, raws = _first_steps()
    a = sessions[0]
    nil = _nil_of(sessions, raws, 1)
    a.receive_message(garbled(nil), 0.0)
    assert a.stats["bad_signature"] == 1 and a.steps.held(0, 1) is None
    a.receive_message(nil, 0.0)
    assert a.steps.held(0, 1) is not None and a.steps.held(0, 1).env.raw == nil


def test_our_own_seat_claimed_is_refused():
    """A STEP claiming our seat (a reflected datagram, signed or not): refused before any
    signature question (``bad_seat``), never held."""
    sessions, raws = _first_steps()
    a = sessions[0]
    a.receive_message(garbled(raws[0]), 0.0)
    a.receive_message(raws[0], 0.0)
    assert a.stats["bad_seat"] == 2 and a.stats["bad_signature"] == 0


def test_a_catchup_pages_garbage_signed_steps_are_dropped():
    """Seat 2 pushes a CATCHUP_RESP (validly signed by it) whose pending STEP messages are its
    own step-0 message and seat 1's (nil, not forced bodies, §C3.8), both with garbage
    signatures: a page's messages are verified on receipt (§C9.2): dropped, counted, nothing
    held."""
    sessions, raws = _first_steps()
    a, liar = sessions[0], sessions[2]
    page = seal_message(liar.identity, MSG_CATCHUP_RESP, CatchupResponse(
        a.game_id, 2, 0, 0, (), (garbled(_nil_of(sessions, raws, 2)), garbled(_nil_of(sessions, raws, 1))), ()))
    a.request_catchup(0.0)
    a.messages_to_send()
    a.receive_message(page, 0.0)
    assert a.steps.held(0, 2) is None and a.steps.held(0, 1) is None
    assert a.stats["bad_signature"] == 2


def test_a_dropped_seats_late_steps_are_ignored():
    """After a quorum dropped seat 3, its late STEP messages are ignored before any signature
    question (§C3.4 row 'dropped seat'): nothing held."""
    sessions = started_sessions(4, E, options=DROP)
    net = KeyedNet(sessions, first_legal(E))
    net.drop = lambda src, dst, raw: src == 3  # seat 3 is silent: voted out
    net.run(max_time=30.0)
    a = sessions[0]
    assert not a.active[3], net.describe()
    b = a.step
    late = seal(sessions[3].identity, MSG_STEP, [a.game_id, b, 3, b"\0" * 32, b"\0" * 32, None])
    before = a.stats["ignored"]
    a.receive_message(garbled(late), net.now)
    assert a.stats["ignored"] == before + 1 and a.steps.held(b, 3) is None


# -- a griefer signing garbage on every message -------------------------------------------------

def test_a_seat_signing_garbage_on_every_message_changes_no_honest_state(tmp_path):
    """Seat 3 puts a garbage signature on every STEP it sends (valid MAC): each is dropped on
    receipt (§C3.4 'bad signature') and the silent seat voted out. Promise: the honest peers
    finish one game together; each names seat 3 and only seat 3; every STEP an honest peer sent
    anyone verifies."""
    sessions, paths, _, _ = logged_game(tmp_path, 4, DROP)
    g = 3
    net = KeyedNet(list(sessions), first_legal(E), lie=lambda src, dst, raw: garbled(raw) if src == g else None)
    net.run(max_time=300.0)
    honest = range(3)
    overs = finals(net)
    assert all(len(overs[i]) == 1 for i in honest), net.describe()
    assert len(final_hashes(net, honest)) == 1
    for i in honest:
        named = {e.seat for e in net.events[i] if isinstance(e, PeerMisbehaved)}
        assert named == {g}, (i, named)
    for i, raw in net.sent_log:
        if i in honest and raw[:2] == STEP_TAG:
            env, b = open_envelope(raw, C.MAX_STEP_MSG), step_of(raw)
            assert env.verify(sessions[0].setup.players[b.seat].public_key)


# -- the memo of good signatures (identity.verify_many) -----------------------------------------

_IDS = [Identity.from_seed(bytes([0xA0 + i])) for i in range(3)]


def _sig_items(draw_ops):
    """(public_key, domain, body, sig) tuples: signed ones and their one-byte mutations."""
    out = []
    for who, body, flip in draw_ops:
        ident = _IDS[who]
        sig = ident.sign(DOMAIN_STEP, body)
        item = (ident.public_key, DOMAIN_STEP, body, sig)
        out.append(item)
        if flip is not None:
            field, pos = flip
            mutated = list(item)
            if field == 0:
                mutated[0] = _IDS[(who + 1) % 3].public_key  # another seat's key
            elif field == 1:
                mutated[1] = DOMAIN_OTHER  # another message type's domain
            else:
                b = bytearray(mutated[field] or b"\0")
                b[pos % len(b)] ^= 1
                mutated[field] = bytes(b)
            out.append(tuple(mutated))
    return out


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.binary(max_size=40),
                          st.one_of(st.none(), st.tuples(st.integers(0, 3), st.integers(0, 99)))),
                min_size=1, max_size=24), st.booleans())
def test_a_remembered_good_signature_answers_only_its_own_bytes(ops, keep):
    """verify_many remembers the good (key, domain, body, sig) it checked; a later ``verify`` of
    any other tuple (another key, domain, body or signature: a different seat, message type,
    input or a spliced signature) must still get the rule's own answer, never the memo's
    (§C9.2 'Bulk signature check'); and the memo answers its own tuple True."""
    identity.forget()
    items = _sig_items(ops)
    got = identity.verify_many(items, keep=keep)
    truth = [identity._check(*it) for it in items]
    assert got == truth
    for it, ok in zip(items, truth):
        assert identity.verify(*it) == ok
    other = [(it[0], it[1], it[2] + b"x", it[3]) for it in items]
    assert [identity.verify(*it) for it in other] == [identity._check(*it) for it in other] == [False] * len(other)
    identity.forget()


def test_two_sessions_checking_in_bulk_at_once_get_their_own_answers():
    """Two threads (two sessions of one process: a peer and its spectator view, or two games)
    call verify_many at once on overlapping batches with good and bad signatures: every answer
    is the rule's, and nothing one batch remembered makes the other answer a bad one True."""
    identity.forget()
    good = [(i.public_key, DOMAIN_STEP, bytes([k]) * 20, i.sign(DOMAIN_STEP, bytes([k]) * 20))
            for i in _IDS for k in range(30)]
    bad = [(pk, d, b, bytes(64) if k % 2 else s[:-1] + bytes([s[-1] ^ 1]))
           for k, (pk, d, b, s) in enumerate(good)]
    batches = [good + bad, bad[::-1] + good[::-1]]
    answers: list = [None, None]

    def run(j):
        for _ in range(5):
            answers[j] = identity.verify_many(batches[j], keep=bool(j))

    threads = [threading.Thread(target=run, args=(j,)) for j in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers[0] == [True] * len(good) + [False] * len(bad)
    assert answers[1] == [False] * len(bad) + [True] * len(good)
    assert not any(identity.verify(*it) for it in bad)
    identity.forget()


# -- the per-key HMAC of channel_auth.mac --------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.binary(min_size=32, max_size=32), st.binary(max_size=1300)), min_size=1, max_size=8))
def test_the_per_key_hmac_tag_is_the_standard_one_for_every_key(pairs):
    """``mac`` keeps one prepared HMAC per key: its tag must be HMAC-SHA256(key, data)[:16] for
    every key and data, whatever keys were used before (a stranger's key never answers for a
    seat's), and ``mac_ok`` refuses the tag of another key or one flipped bit (§N2.2)."""
    for key, data in pairs:
        want = std_hmac.digest(key, data, "sha256")[:TAG_LEN]
        assert mac(key, data) == want and mac_ok(key, data, want)
        other = bytes([key[0] ^ 1]) + key[1:]
        assert not mac_ok(other, data, want)
        assert not mac_ok(key, data, bytes([want[0] ^ 1]) + want[1:])


def test_the_hmac_cache_starting_over_changes_no_tag():
    """Past ``_KEYED_MAX`` keys (a flood of strangers' introductions) the cache starts over: a
    seat's tags before and after are the same bytes."""
    seat_key = b"\x42" * 32
    before = mac(seat_key, b"step")
    for i in range(1100):
        mac(i.to_bytes(32, "big"), b"x")
    assert mac(seat_key, b"step") == before == std_hmac.digest(seat_key, b"step", "sha256")[:TAG_LEN]


# -- the channel key (Endpoint.peer_key) ---------------------------------------------------------

def test_only_the_seats_own_bytes_ever_arrive_under_its_channel_key():
    """The hostile laptop replays seat A's first datagrams (its introduction, MACed by A) from a
    spoofed address C, and introduces its own key from A's address and from D with a payload
    claiming to be A's. Every payload the victim's endpoint delivers with ``peer_key`` = A's
    X25519 key (what the lobby and the watch service are told) must be bytes A itself sent: a
    stranger's payload never arrives under a seat's key, whatever the source address."""
    ia, iv, im = (Identity.from_seed(s) for s in (b"redteam-a", b"redteam-victim", b"redteam-mallory"))
    A, V, Cc, D = (("127.0.0.1", p) for p in (3001, 3002, 3003, 3004))
    seat = Endpoint(epoch=11, keys=KeyCache(ia), accept_plain=False)
    victim = Endpoint(epoch=22, keys=KeyCache(iv), accept_plain=False)
    mallory = Endpoint(epoch=33, keys=KeyCache(im), accept_plain=False)
    seat.pin(V, iv.x25519_public_key)
    victim.pin(A, ia.x25519_public_key)
    sent_by_a = [b"STEP of A #%d" % i for i in range(3)]
    for p in sent_by_a:
        seat.send(V, p)
    wire = [d for d, dst in seat.datagrams_to_send(0.0) if dst == V]
    mallory.pin(V, iv.x25519_public_key)
    mallory.send(V, b"STEP of A, forged")
    forged = [d for d, dst in mallory.datagrams_to_send(0.0) if dst == V]
    got = []
    for src, batch in ((A, wire), (Cc, wire), (A, forged), (D, forged), (Cc, forged)):
        for d in batch:
            for addr, payload in victim.receive_datagram(d, src, 1.0):
                got.append((victim.peer_key(addr), payload))
    assert any(p in sent_by_a for _, p in got)
    assert all(p in sent_by_a for key, p in got if key == ia.x25519_public_key), got
    assert all(key != ia.x25519_public_key for key, p in got if p not in sent_by_a)


# -- any mix of lies by one seat ----------------------------------------------------------------

LIES = ("garbage_signature", "unsigned_other_input", "signed_other_input")


@settings(max_examples=10, deadline=None)
@given(st.sets(st.tuples(st.integers(0, 2), st.integers(8, 30), st.sampled_from(LIES)), min_size=1, max_size=6))
def test_no_mix_of_one_seats_lies_gets_an_honest_seat_proven_or_dropped(tmp_path_factory, lies):
    """Seat 3 lies on chosen deliveries (receiver, step): the same body with a garbage signature,
    another input with a garbage signature, or another input validly signed (a real
    equivocation). Whatever the mix, no honest peer proves or drops an honest seat (an unsigned
    message is dropped on receipt, §C3.4; a signed second version proves seat 3 only, §C8.8), and the
    honest peers that finish agree on one final hash. A peer halted with ``StepOverturned``
    restarts from its log as the node does."""
    tmp_path = tmp_path_factory.mktemp("lies")
    n, g = 4, 3
    sessions, paths, secrets, _ = logged_game(tmp_path, n, DROP)
    plan = {(dst, step): how for dst, step, how in lies}

    def lie(src, dst, raw):
        b = step_of(raw)
        how = plan.get((dst, b.step)) if src == g else None
        if how is None:
            return None
        if how == "garbage_signature":
            return garbled(raw)
        other = seal(sessions[g].identity, MSG_STEP,
                     [b.game_id, b.step, g, b.prev_hash, b.prev_digest, None if b.input is not None else ["adv", 1]])
        return garbled(other) if how == "unsigned_other_input" else other

    net = KeyedNet(list(sessions), first_legal(E), lie=lie)
    net.run(max_time=300.0, hook=restart_overturned(paths, secrets))
    honest = range(n - 1)
    for i in honest:
        for e in net.events[i]:
            if isinstance(e, SeatDropped):
                assert e.seat == g, (i, e, net.describe())
            if isinstance(e, CheaterProven):
                assert e.seat == g, (i, e, net.describe())
    assert len(final_hashes(net, honest)) <= 1


# -- any bytes over a seat's own channel ----------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 400), st.sampled_from(["set", "cut", "add"]), st.integers(0, 255)),
                min_size=1, max_size=4), st.integers(1, 3))
def test_any_bytes_on_a_seats_own_channel_are_dropped_or_held_validly_signed(edits, sender):
    """A lying seat may put any bytes under its valid MAC. Damaged copies of its real step-0
    message (flips, cuts, insertions) never raise; each is dropped and counted, or held, and a
    held message always verifies (§C3.4: checked on receipt) or is the seat's forced body of
    that plain chance step (§C3.8: the one body held unchecked)."""
    sessions, raws = _first_steps()
    a = sessions[0]
    data = bytearray(raws[sender])
    for pos, how, val in edits:
        i = pos % max(1, len(data))
        if how == "set" and data:
            data[i] = val
        elif how == "cut" and data:
            del data[i]
        else:
            data.insert(i, val)
    a.receive_message(bytes(data), 0.0)
    pks = [p.public_key for p in a.setup.players]
    for seat in range(1, 4):
        for step in (0, 1):
            h = a.steps.held(step, seat)
            assert h is None or h.env.verify(pks[seat]) or (step == a.step == 0 and is_forced(
                h.env.body, h.body, a.state_hash, a.prev_digest, a.last_reveals[seat])), (step, seat)
