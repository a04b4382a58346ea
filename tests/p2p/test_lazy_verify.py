"""Signatures checked when used (protocol.md §C3.7, ``p2p/step_auth.py``): a STEP that arrives on
its seat's own keyed channel is applied without an Ed25519 verify; its signature is checked
before the message is used as evidence or sent to anyone, and every deferred one before the
final attestation. In memory (``ChannelNet``: every delivery names the sender's setup X25519
key as the channel key, as ``Node._on_message`` does with ``Endpoint.peer_key``), fake engine,
virtual clock.

A *garbler* seat sends some STEP messages with a garbage signature (the body unchanged, as if
its MAC-keyed endpoint signed badly): the honest peers' game is unaffected, no honest peer
ever sends such a record on, and the final sweep names it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fake_engine as E
from p2p import const as C
from p2p.lockstep import HALTED, GameOver, PeerMisbehaved, StepOverturned
from p2p.resume import resume_session
from p2p.step_auth import MAX_DEFERRED, StepAuth
from p2p.verify import verify_log
from p2p.wire import (MSG_CATCHUP_RESP, MSG_RECORDS, MSG_STEP, decode_catchup_resp, decode_step_body,
                      open_envelope, seal)
from p2p.gamelog import KIND_STEP, STEP_RECORD

from p2p_harness import Net, first_legal, started_sessions
from test_resilience import logged_game

STEP_TAG = bytes([0x93, MSG_STEP])
DROP = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 5, "target": 30}


def garbled(raw: bytes) -> bytes:
    """``raw`` (a STEP envelope) with the same body and a signature that does not verify."""
    env = open_envelope(raw, C.MAX_STEP_MSG)
    bad = bytes(b ^ 0x5A for b in env.sig)
    return raw[:len(raw) - len(env.sig)] + bad


class ChannelNet(Net):
    """``Net`` whose deliveries come over keyed channels: the receiver is told the sender's setup
    X25519 key (``via``). ``garble(src, dst, raw) -> bool`` picks the deliveries whose signature
    is replaced by garbage (same body, same channel)."""

    def __init__(self, sessions, choose, garble=None, **kw):
        super().__init__(sessions, choose, **kw)
        self.xkeys = [p.x25519_key for p in next(s for s in sessions if s is not None).setup.players]
        self.garble = garble or (lambda src, dst, raw: False)
        self.garbled: list[tuple[int, int, bytes]] = []

    def send_to(self, src, dst, raw):
        j = self.s.index(dst)
        if raw[:2] == STEP_TAG and self.garble(src, j, raw):
            raw = garbled(raw)
            self.garbled.append((src, j, raw))
        dst.receive_message(raw, self.now, self.xkeys[src])


def _steps_of(raw: bytes):
    return decode_step_body(open_envelope(raw, C.MAX_STEP_MSG).body)


def _sent_records(net: ChannelNet, honest) -> list[bytes]:
    """Every STEP envelope an honest peer sent: its own, and those inside its catch-up answers."""
    out = []
    for i, raw in net.sent_log:
        if i not in honest:
            continue
        env = open_envelope(raw, C.MAX_CATCHUP_MSG)
        if env.mtype == MSG_STEP:
            out.append(raw)
        elif env.mtype == MSG_CATCHUP_RESP:
            r = decode_catchup_resp(env.body)
            out += list(r.pending)
            for kind, payload in r.records:
                if kind == KIND_STEP:
                    out += [x for x in STEP_RECORD.decode(payload)[1] if x is not None]
    return out


def _verifies(raw: bytes, sessions) -> bool:
    env = open_envelope(raw, C.MAX_STEP_MSG)
    b = decode_step_body(env.body)
    return env.verify(sessions[0].setup.players[b.seat].public_key)


# -- the part alone --

def test_only_the_seats_own_setup_key_defers():
    keys = [bytes([i]) * 32 for i in range(4)]
    x = [bytes([0x40 + i]) * 32 for i in range(3)] + [bytes([0x40]) * 32]  # seat 3 shares seat 0's key
    auth = StepAuth(keys, x, my_seat=1)
    assert auth.may_defer(2, x[2])
    assert not auth.may_defer(2, x[0])       # another seat's channel
    assert not auth.may_defer(2, None)       # no keyed channel (plain, early buffer, catch-up page)
    assert not auth.may_defer(2, b"\x99" * 32)  # a stranger's introduction key
    assert not auth.may_defer(1, x[1])       # our own key: nobody else speaks for us
    assert not auth.may_defer(0, x[0]) and not auth.may_defer(3, x[0])  # a shared key proves no seat
    auth.suspect.add(2)
    assert not auth.may_defer(2, x[2])       # caught once: verified at once from then on


def test_the_deferred_backlog_stays_bounded():
    sessions = started_sessions(2, E)
    a, b = sessions
    env = open_envelope(seal(b.identity, MSG_STEP, [a.game_id, 0, 1, b"\0" * 32, b"\0" * 32, None]))
    for k in range(4 * MAX_DEFERRED):
        assert a.auth.defer(k, 1, env) == []
        assert a.auth.pending() <= MAX_DEFERRED  # past it, each deferral checks the two oldest
    assert a.auth.deferred(0, 1) is None and a.auth.deferred(4 * MAX_DEFERRED - 1, 1) is not None


# -- whole games --

def test_an_honest_game_verifies_nothing_on_receipt_and_everything_before_the_end(tmp_path):
    sessions, paths, _, _ = logged_game(tmp_path, 4, None)
    net = ChannelNet(sessions, first_legal(E))
    net.run(max_time=1e4)
    finals = {e.final_hash for evs in net.events for e in evs if isinstance(e, GameOver)}
    assert len(finals) == 1
    for s, p in zip(sessions, paths):
        assert s.auth.stats["deferred"] > 0 and s.auth.pending() == 0
        assert s.auth.stats["bad_later"] == 0 and s.stats["bad_signature"] == 0
        s.log.close()
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, rep.error


def test_garbage_signatures_under_a_valid_mac_change_nothing_and_the_sweep_names_them(tmp_path):
    sessions, paths, _, _ = logged_game(tmp_path, 4, None)
    clean = ChannelNet(started_sessions(4, E), first_legal(E))
    clean.run(max_time=1e4)
    clean_final = {e.final_hash for evs in clean.events for e in evs if isinstance(e, GameOver)}
    g = 3
    net = ChannelNet(sessions, first_legal(E), garble=lambda src, dst, raw: src == g and _steps_of(raw).step in (5, 9))
    net.run(max_time=1e4)
    assert net.garbled
    honest = range(3)
    finals = {e.final_hash for i in honest for e in net.events[i] if isinstance(e, GameOver)}
    assert finals == clean_final  # the game state is unaffected
    for i in honest:
        named = {(e.seat, e.step) for e in net.events[i] if isinstance(e, PeerMisbehaved)}
        assert named == {(g, 5), (g, 9)}, named
        assert sessions[i].auth.first_bad() == 5 and g in sessions[i].auth.suspect
        # Spectators are served the records before the first bad one (§C3.7), header first.
        view = sessions[i].history()
        cut = sessions[i].catchup.records().first(5)
        assert len(view) == cut > 0
        served = list(view.with_head(0, b"header"))
        assert len(served) == cut + 1 and served[0] == (0, b"header")
        steps = [STEP_RECORD.decode(p)[1] for k, p in served[1:] if k == KIND_STEP]
        assert all(_verifies(r, sessions) for rec in steps for r in rec if r is not None)
        sessions[i].log.close()
        rep = verify_log(paths[i], engine=E)
        # What `lanopoli verify` says of that log: the first record with the seat's bad signature.
        assert not rep.ok and rep.first_bad_step == 5 and f"seat {g}: bad signature" in rep.error
    assert all(_verifies(raw, sessions) for raw in _sent_records(net, honest))
    # A catch-up request whose range holds that record is not answered (the others answer).
    a, asker = sessions[0], sessions[1]
    ignored = a.stats["ignored"]
    a.messages_to_send()
    a.receive_message(asker.catchup.request(0, net.now + 100.0), net.now + 100.0, net.xkeys[1])
    assert a.stats["ignored"] == ignored + 1 and a.messages_to_send() == []


def test_a_restart_replays_its_own_logs_mac_applied_record_and_never_serves_it(tmp_path):
    """Our own log holds the garbler's record with its bad signature (we applied it on its
    channel MAC): a restart replays through it (no damage, §C10), names it again and never
    serves it; a catch-up from a later step is served."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, None)
    g = 3
    net = ChannelNet(sessions, first_legal(E), garble=lambda src, dst, raw: src == g and _steps_of(raw).step == 5)
    net.run(max_time=1e4)
    s0 = sessions[0]
    s0.log.close()
    s0.own_log.close()
    again, rep = resume_session(paths[0], s0.identity, secrets[0], E, own_log_path=str(paths[0]) + ".own",
                                now=net.now)
    assert rep.damage is None and again.step == s0.step
    assert again.auth.bad == {5: {g}} and g in again.auth.suspect
    assert again.stats["bad_signature"] == 1
    asker, now = sessions[1], net.now + 100.0
    for start, answered in ((0, False), (6, True)):
        again.messages_to_send()
        again.receive_message(asker.catchup.request(start, now), now, net.xkeys[1])
        assert bool(again.messages_to_send()) == answered, start
        now += 100.0


def test_a_badly_signed_message_used_as_evidence_is_dropped_not_proven(tmp_path):
    """The garbler's bad-signature message of a step is also an equivocation (another input to
    one peer): the proof would need its signature; it is checked first, found bad, and the
    message is handled as a bad signature (no complaint with it goes out)."""
    sessions, paths, _, _ = logged_game(tmp_path, 4, DROP)
    g = 3
    state = {}

    def garble(src, dst, raw):
        b = _steps_of(raw)
        return src == g and dst == 0 and b.step == 12

    net = ChannelNet(sessions, first_legal(E), garble=garble)
    net.run(max_time=1e4)
    assert net.garbled
    assert all(_verifies(raw, sessions) for raw in _sent_records(net, range(3)))
    assert sessions[0].stats["bad_signature"] >= 1 or sessions[0].auth.stats["bad_later"] >= 1
    finals = {e.final_hash for i in range(3) for e in net.events[i] if isinstance(e, GameOver)}
    assert len(finals) == 1


def test_forwarded_or_catchup_records_with_a_bad_signature_are_dropped_at_once():
    """Not over the seat's own channel (another seat's channel, no channel, a catch-up page):
    verified on receipt as before, dropped and counted."""
    sessions = started_sessions(3, E)
    net = ChannelNet(sessions, first_legal(E))
    net.inputs()
    raws = {i: [r for r in s.messages_to_send() if r[:2] == STEP_TAG] for i, s in enumerate(sessions)}
    raw = garbled(raws[1][0])
    a = sessions[0]
    xk = [p.x25519_key for p in a.setup.players]
    before = a.stats["bad_signature"]
    a.receive_message(raw, 0.0, xk[2])   # seat 1's message over seat 2's channel: forwarded
    a.receive_message(raw, 0.0)          # no keyed channel
    assert a.stats["bad_signature"] == before + 2
    assert a.steps.held(0, 1) is None and a.auth.pending() == 0
    a.receive_message(raw, 0.0, xk[1])   # its own channel: deferred, held
    assert a.steps.held(0, 1) is not None and a.auth.pending() == 1


def test_an_applied_bad_version_loses_to_a_signed_one(tmp_path):
    """Seat d sends its real message of a step to some peers and, to the victim, another input
    under a garbage signature (over its valid MAC). The victim applies it; the digests split; the
    records the others send carry the validly signed version: the victim's applied version (bad
    signature) loses whatever ``kept_version`` would say, it rolls back (StepOverturned) and
    adopts the signed one; every honest peer finishes with one final hash."""
    n = 4
    sessions, paths, secrets, _ = logged_game(tmp_path, n, DROP)
    d, victim = n - 1, 0
    state: dict = {"step": None}

    def drop(src, dst, raw):
        if src != d or raw[:2] != STEP_TAG:
            return False
        b = decode_step_body(open_envelope(raw).body)
        if state["step"] is None:
            if b.step < 10 or b.input is not None:
                return False
            second = seal(sessions[d].identity, MSG_STEP, [b.game_id, b.step, d, b.prev_hash, b.prev_digest,
                                                           ["adv", 7]])
            state.update(step=b.step, real=raw, second=garbled(second))
        if b.step == state["step"] and dst == victim:
            net.s[dst].receive_message(state["second"], net.now, net.xkeys[d])
            return True
        return False

    restarts = []

    def hook(net):
        for i, s in enumerate(net.s):
            if s is not None and s.phase == HALTED and isinstance(s.halt_reason, StepOverturned):
                ev = s.halt_reason
                s.log.close()
                s.own_log.close()
                again, _ = resume_session(paths[i], s.identity, secrets[i], E, own_log_path=str(paths[i]) + ".own",
                                          now=net.now, truncate_at=ev.step)
                assert again.adopt_equivocation(ev.step, ev.seat, ev.chosen, ev.other)
                net.s[i] = again
                restarts.append((i, ev.step))
        return None

    net = ChannelNet(list(sessions), first_legal(E), drop=drop)
    net.run(max_time=1e4, hook=hook)
    assert state["step"] is not None
    assert restarts == [(victim, state["step"])]
    finals = {e.final_hash for i in range(n - 1) for e in net.events[i] if isinstance(e, GameOver)}
    assert len(finals) == 1
    for i in range(n - 1):
        net.s[i].log.close()
        rep = verify_log(paths[i], engine=E)
        assert rep.ok and rep.complete, (i, rep.error)


def test_adopt_takes_the_signed_version_over_a_badly_signed_one_and_proves_nothing(tmp_path):
    """After the restart ``StepOverturned(k, s, chosen, other)`` caused, ``other`` may be the
    version we applied on its channel MAC whose signature is bad: ``chosen`` is held, no proof."""
    sessions, _, _, _ = logged_game(tmp_path, 4, DROP)
    s0, d = sessions[0], sessions[3]
    k = s0.step
    body = [s0.game_id, k, 3, s0.state_hash, s0.steps.prev_digest]
    signed = seal(d.identity, MSG_STEP, body + [["adv", 1]])
    unsigned = garbled(seal(d.identity, MSG_STEP, body + [["adv", 2]]))
    assert not s0.adopt_equivocation(k, 3, unsigned, signed)  # the chosen one must verify
    assert s0.adopt_equivocation(k, 3, signed, unsigned)
    assert s0.steps.held(k, 3).env.raw == signed and s0.complaints.cheaters() == []


@settings(max_examples=12, deadline=None)
@given(st.sets(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 40)), max_size=12))
def test_no_honest_peer_ever_sends_a_record_that_fails_verify(bad):
    """For any set of (sender, receiver, step) deliveries garbled by their sender, no peer sends
    a STEP, or a catch-up page with one, whose signature fails — the garbled ones are checked
    before anything leaves the peer; and the game still ends with one final hash."""
    sessions = started_sessions(4, E)
    net = ChannelNet(sessions, first_legal(E),
                     garble=lambda src, dst, raw: (src, dst, _steps_of(raw).step) in bad)
    net.run(max_time=1e4)
    assert all(_verifies(raw, sessions) for raw in _sent_records(net, range(4)))
    finals = {e.final_hash for evs in net.events for e in evs if isinstance(e, GameOver)}
    assert len(finals) == 1
    for s in sessions:
        assert s.auth.pending() == 0
