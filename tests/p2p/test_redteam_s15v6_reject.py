"""Red team session 15 (H167) on protocol version 6: a REJECT answers one JOIN (protocol.md
§C2.1 'REJECT answers one JOIN', §N3.1 'A replayed REJECT').

The attacker replays a REJECT the host really signed: to another joiner, to a later attempt of the
same key, to a demo-seed joiner whose JOIN bytes repeat (the stated limit); and a host answers a
PROBE with REJECT only while its lobby is closed. Sans-I/O lobbies driven by hand, no socket, no
clock.
"""

from __future__ import annotations

from p2p import const as C
from p2p.identity import Identity
from p2p.join_code import join_code_tag
from p2p.lobby import ABORTED, JOINING, SIGNING, Lobby
from p2p.reject import answers_hash
from p2p.wire import MSG_REJECT, MSG_STATUS, decode_reject, open_envelope

from test_redteam_s15v6_endpoints import HOST, HOST_ID, _answers, _host, _joiner, _send_join


# -- REJECT answers one JOIN (§C2.1, §N3.1) -------------------------------------------------------


def _refused_join(host: Lobby, j: Lobby, at) -> bytes:
    """The host's REJECT 1 (lobby closed) of ``j``'s JOIN from ``at``: the host's lobby is filled
    first by two other keys (a 3-seat race lobby) so that it proposes."""
    for i, seed in enumerate((b"h167-f1", b"h167-f2")):
        other = _joiner(seed, ("10.0.0.%d" % (20 + i), 5000), host.game_id)
        _send_join(host, other, ("10.0.0.%d" % (20 + i), 5000))
    assert host.phase == SIGNING
    host.messages_to_send()
    _send_join(host, j, at)
    (rej,) = [raw for dst, raw in host.messages_to_send() if tuple(dst) == at]
    body = decode_reject(open_envelope(rej).body)
    assert body.code == C.REJECT_FULL and body.answers == answers_hash(j.admission.join_msg())
    return rej


def test_c2_1_a_reject_of_one_joiner_replayed_to_another_is_dropped():
    """§C2.1: ``joiner_pk`` names the JOIN it answers: the host's real REJECT of joiner B,
    delivered to joiner A from the host's address, is ``not_for_us``; A keeps joining."""
    host = _host()
    b_at, a_at = ("10.0.0.3", 5000), ("10.0.0.2", 5000)
    rej = _refused_join(host, _joiner(b"h167-rb", b_at, host.game_id), b_at)
    a = _joiner(b"h167-ra", a_at, host.game_id)
    a.receive_message(rej, HOST, 0.0, HOST_ID.x25519_public_key)
    assert a.phase == JOINING and a.stats["not_for_us"] == 1


def test_c2_1_a_reject_of_an_earlier_attempt_of_the_same_key_is_stale():
    """§C2.1 'REJECT answers one JOIN': the host's real REJECT of A's JOIN in an attempt A gave
    up, replayed to A's next attempt (same key, same endpoint) is ``stale_reject``: every
    attempt's JOIN bytes are fresh (new chain head and seed commitment)."""
    host = _host()
    a_at = ("10.0.0.2", 5000)
    first = _joiner(b"h167-re", a_at, host.game_id)
    rej = _refused_join(host, first, a_at)
    again = _joiner(b"h167-re", a_at, host.game_id)
    assert again.admission.join_msg() != first.admission.join_msg()  # the premise: fresh bytes
    again.receive_message(rej, HOST, 1.0, HOST_ID.x25519_public_key)
    assert again.phase == JOINING and again.stats["stale_reject"] == 1
    first.receive_message(rej, HOST, 1.0, HOST_ID.x25519_public_key)  # the attempt it answers stops
    assert first.phase == ABORTED


def test_c2_1_a_demo_seed_joiner_repeats_its_join_bytes_so_an_old_reject_is_believed():
    """The stated limit (§C2.1: "only ``--seed`` demo identities repeat theirs, and anyone can sign
    for those"): with a demo seed every attempt's JOIN is the same bytes, so the REJECT of an
    earlier attempt stops the next one. A demo identity's key is public anyway."""
    host = _host()
    a_at = ("10.0.0.2", 5000)
    first = _joiner(b"h167-demo", a_at, host.game_id, demo_seed=b"demo")
    rej = _refused_join(host, first, a_at)
    again = _joiner(b"h167-demo", a_at, host.game_id, demo_seed=b"demo")
    assert again.admission.join_msg() == first.admission.join_msg()
    again.receive_message(rej, HOST, 1.0, HOST_ID.x25519_public_key)
    assert again.phase == ABORTED


def test_n3_1_a_host_answers_a_probe_with_reject_only_while_its_lobby_is_closed():
    """§N3.1: a PROBE gets the host's signed STATUS while its lobby is open and a REJECT 1 (which
    stops the joiner by code: the lobby is full) only while it is closed; the REJECT answers that
    very PROBE (its ``answers``), so it stops no other attempt."""
    host = _host()
    tag = join_code_tag(host.game_id, HOST_ID.public_key)
    p_at = ("10.0.0.9", 5000)
    early = Lobby.join(Identity.from_seed(b"h167-p1"), endpoint=p_at, host_addr=HOST, game_id=None, name="p",
                       chain_length=8, code_tag=tag)
    (_, probe), = early.messages_to_send()
    host.receive_message(probe, p_at, 0.0, None, True)
    assert _answers(host, p_at) == [MSG_STATUS]
    late = Lobby.join(Identity.from_seed(b"h167-p2"), endpoint=p_at, host_addr=HOST, game_id=None, name="q",
                      chain_length=8, code_tag=tag)
    for i, seed in enumerate((b"h167-g1", b"h167-g2")):
        other = _joiner(seed, ("10.0.0.%d" % (30 + i), 5000), host.game_id)
        _send_join(host, other, ("10.0.0.%d" % (30 + i), 5000))
    host.messages_to_send()
    (_, probe2), = late.messages_to_send()
    host.receive_message(probe2, p_at, 10.0, None, True)
    (raw,) = [r for d, r in host.messages_to_send() if tuple(d) == p_at]
    assert open_envelope(raw).mtype == MSG_REJECT
    assert decode_reject(open_envelope(raw).body).answers == answers_hash(probe2)
    early.receive_message(raw, HOST, 10.0, None)  # another attempt (another key): not for it
    assert early.phase != ABORTED
    late.receive_message(raw, HOST, 10.0, None)
    assert late.phase == ABORTED
