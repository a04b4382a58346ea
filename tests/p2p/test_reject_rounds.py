"""A REJECT answers a JOIN of the joiner's current attempt and round (protocol.md §C2.1 'REJECT answers
one JOIN', §C2.2 step 7 new rounds; re-read RV15R-A, session 15, sans-I/O).

* A member's JOIN of an earlier round, replayed to the host from the member's address (plain,
  spoofed source) after it joined the new round, earns a REJECT 3 answering that older JOIN: the
  member follows a new round by forgetting its earlier JOINs, so it drops that REJECT and stays.
* A member's re-sent JOIN of the old round crossing the new round's STATUS (an honest race): the
  host does not take an unchanged entry as the member's fresh one, so its real fresh JOIN is
  taken and the member stays."""

from __future__ import annotations

from p2p.lobby import ABORTED, SIGNING, WAITING
from p2p.wire import MSG_REJECT, decode_reject, open_envelope

from test_redteam_s15v6_endpoints import HOST, HOST_ID, _host, _joiner, _send_join

A_AT, B_AT = ("10.0.0.2", 5000), ("10.0.0.3", 5000)


def _seated():
    """A host with joiners A and B seated (the setup proposed), A's round-0 JOIN kept; A has heard
    the host's STATUS and PROPOSAL."""
    host = _host()
    a = _joiner(b"rv-a", A_AT, host.game_id)
    b = _joiner(b"rv-b", B_AT, host.game_id)
    j1 = a.admission.join_msg()
    _send_join(host, a, A_AT)
    _send_join(host, b, B_AT)
    assert host.phase == SIGNING
    for dst, raw in host.messages_to_send():
        if tuple(dst) == A_AT:
            a.receive_message(raw, HOST, 0.0, HOST_ID.x25519_public_key)
    return host, a, b, j1


def test_c2_1_an_old_rounds_join_replayed_earns_a_reject_the_member_drops():
    host, a, b, j1 = _seated()
    a_at = A_AT
    host.restart_round([b.identity.public_key], 1.0)   # B removed: new round, A stale
    for dst, raw in host.messages_to_send():
        if tuple(dst) == a_at:
            a.receive_message(raw, HOST, 1.0, HOST_ID.x25519_public_key)
    assert a.phase == WAITING and a.round == 1
    j2 = a.admission.join_msg()
    assert j2 != j1
    host.receive_message(j2, a_at, 1.0, a.identity.x25519_public_key)   # fresh entry, keyed
    host.messages_to_send()
    host.receive_message(j1, a_at, 2.0, None)   # a stranger replays A's round-0 JOIN, plain, spoofed source
    rej = [raw for dst, raw in host.messages_to_send() if tuple(dst) == a_at and open_envelope(raw).mtype == MSG_REJECT]
    assert [decode_reject(open_envelope(r).body).code for r in rej] == [3]  # the premise: the host answers it
    for r in rej:
        a.receive_message(r, HOST, 2.0, HOST_ID.x25519_public_key)
    assert a.phase != ABORTED, dict(a.stats)


def test_c2_2_an_old_rounds_join_re_sent_across_the_new_round_is_not_taken_as_fresh():
    host, a, b, j1 = _seated()
    a_at = A_AT
    host.restart_round([b.identity.public_key], 1.0)
    st = [raw for dst, raw in host.messages_to_send() if tuple(dst) == a_at]
    host.receive_message(j1, a_at, 1.0, a.identity.x25519_public_key)   # A's J1 re-send, in flight across the STATUS
    for raw in st:
        a.receive_message(raw, HOST, 1.0, HOST_ID.x25519_public_key)
    j2 = a.admission.join_msg()
    for dst, raw in host.messages_to_send():
        if tuple(dst) == a_at: a.receive_message(raw, HOST, 1.1, HOST_ID.x25519_public_key)
    host.receive_message(j2, a_at, 1.2, a.identity.x25519_public_key)
    for dst, raw in host.messages_to_send():
        if tuple(dst) == a_at:
            a.receive_message(raw, HOST, 1.2, HOST_ID.x25519_public_key)
    assert a.phase != ABORTED, dict(a.stats)
