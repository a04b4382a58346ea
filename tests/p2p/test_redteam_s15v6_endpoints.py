"""Red team session 15 (H167) on protocol version 6: signed endpoints and REJECT answers
(protocol.md §C2.1 'Endpoints', 'REJECT answers one JOIN', 'What signed endpoints hold against',
§C2.2 step 2, §N3.1).

The attacker is one laptop on the LAN that spoofs any source address and signs with keys of its
own: a joiner naming the host's or a seated joiner's endpoint, a JOIN whose endpoint is not its
source (in the forms a socket gives: IPv6 4-tuples, uncompressed text, a scope), a ghost squatting
a later joiner's endpoint (the stated limit, and how long it lasts), and REJECTs replayed to another
joiner or another attempt. Sans-I/O lobbies, no socket, no clock: every test is a few lobbies
driven by hand.
"""

from __future__ import annotations

import pytest

from p2p import const as C
from p2p.identity import Identity
from p2p.lobby import ABORTED, JOINING, NO_ANSWER, SIGNING, WAITING, Lobby
from p2p.reject import answers_hash
from p2p.wire import MSG_REJECT, MSG_STATUS, decode_reject, open_envelope

HOST = ("10.0.0.1", 5000)
HOST_ID = Identity.from_seed(b"h167-host")
KEYS = (HOST_ID.public_key, HOST_ID.x25519_public_key)


def _host(seats: int = 3) -> Lobby:
    return Lobby.host(HOST_ID, edition="race", seats=seats, name="h", endpoint=HOST, chain_length=8)


def _joiner(seed: bytes, at, gid: bytes, **kw) -> Lobby:
    return Lobby.join(Identity.from_seed(seed), endpoint=at, host_addr=HOST, game_id=gid, name=seed.decode()[-2:],
                      chain_length=8, host_keys=KEYS, **kw)


def _send_join(host: Lobby, j: Lobby, src, now: float = 0.0, keyed: bool = True) -> None:
    """``j``'s JOIN as the host receives it from ``src`` (over a channel keyed with j's key, or plain)."""
    host.receive_message(j.admission.join_msg(), src, now, j.identity.x25519_public_key if keyed else None)


def _answers(host: Lobby, to) -> list:
    return [open_envelope(raw).mtype for dst, raw in host.messages_to_send() if tuple(dst) == tuple(to)]


# -- a joiner naming someone else's endpoint (§C2.1 'What signed endpoints hold against') --------


def test_c2_2_a_ghost_spoofing_the_hosts_own_endpoint_is_never_seated():
    """§C2.2 step 2 'one member per endpoint': the host is a member at its own endpoint, so a JOIN
    spoofed from the host's address naming it (a fresh key: the host would send itself STATUS and
    open a seat channel to itself) is ``endpoint_taken``, not answered, nothing seated."""
    host = _host()
    ghost = _joiner(b"h167-ghost-h", HOST, host.game_id)
    _send_join(host, ghost, HOST)
    assert host.stats["endpoint_taken"] == 1
    assert len(host.members()) == 1 and host.messages_to_send() == []


def test_c2_2_a_ghost_spoofing_a_seated_joiners_endpoint_neither_moves_nor_shares_it():
    """§C2.2 step 2: after A joined from its endpoint, a fresh key's JOIN spoofed from A's endpoint
    (A's address and port) is ``endpoint_taken``: A keeps its entry and address, the ghost is not
    seated and gets no answer there (A's machine would receive it)."""
    host = _host()
    a_at = ("10.0.0.2", 5000)
    a = _joiner(b"h167-a", a_at, host.game_id)
    _send_join(host, a, a_at)
    host.messages_to_send()
    ghost = _joiner(b"h167-ghost-a", a_at, host.game_id)
    _send_join(host, ghost, a_at, keyed=False)
    assert host.stats["endpoint_taken"] == 1 and host.messages_to_send() == []
    assert [(p.public_key, tuple(addr)) for p, addr in host.members()] == [
        (HOST_ID.public_key, HOST), (a.identity.public_key, a_at)]


@pytest.mark.parametrize("src, seated", [
    (("10.0.0.2", 5000), True),  # its own source
    (("10.0.0.2", 5001), False),  # another port of the same machine
    (("10.0.0.3", 5000), False),  # another machine
])
def test_c2_2_a_join_is_taken_only_from_the_ipv4_endpoint_it_signed(src, seated):
    host = _host()
    j = _joiner(b"h167-v4", ("10.0.0.2", 5000), host.game_id)
    _send_join(host, j, src, keyed=False)
    assert (len(host.members()) == 2) == seated
    assert host.stats.get("endpoint_mismatch", 0) == (0 if seated else 1)


@pytest.mark.parametrize("src, seated", [
    (("fd00::2", 5000, 0, 0), True),  # a socket's IPv6 4-tuple
    (("fd00:0:0:0:0:0:0:2", 5000, 0, 0), True),  # the same address, uncompressed text
    (("FD00::2", 5000, 0, 0), True),  # upper case
    (("fd00::2%eth0", 5000, 0, 2), False),  # scoped: a zone is one machine's interface
    (("::ffff:253.0.0.2", 5000, 0, 0), False),  # IPv4-mapped: another address
    (("fd00::3", 5000, 0, 0), False),
])
def test_c2_2_a_join_is_taken_only_from_the_ipv6_endpoint_it_signed_whatever_the_sources_text(src, seated):
    """§C2.1 'Endpoints' (one text form) and §C2.2 step 2: the source is compared as an address,
    not as text: the forms a socket may give for the signed ``fd00::2`` seat it, another address
    (or a scoped or mapped one) never."""
    host = _host()
    j = _joiner(b"h167-v6", ("fd00::2", 5000), host.game_id)
    _send_join(host, j, src, keyed=False)
    assert (len(host.members()) == 2) == seated, src


def test_c2_1_a_squatted_endpoint_keeps_its_later_joiner_out_for_as_long_as_the_lobby_is_not_full():
    """The stated limit (§C2.1 'What signed endpoints hold against': "if the victim is a later
    joiner on that port, its JOIN is endpoint_taken until then"), and its extent. A ghost whose
    JOIN is spoofed from V's endpoint before V joins is seated there; V's own JOIN, copied every
    JOIN_RESEND_S, is ``endpoint_taken`` with no answer, so V gives up at JOIN_TIMEOUT (10 s) with
    "no answer from the host". The ghost is removed only at SETUP_TIMEOUT of a full lobby's round
    (§C2.2 step 7): while a seat is free it stays (a waiting member has no deadline). The attacker
    must know V's port in advance (a node's game port is a free one, shown only by its datagrams).
    Fix idea if it matters: seat a new member only once its channel answered a CHALLENGE (as a
    PROBE, §N3.1 rule 0), so a spoofed JOIN seats nobody."""
    host = _host(seats=3)
    v_at = ("10.0.0.7", 41234)
    ghost = _joiner(b"h167-squat", v_at, host.game_id)
    _send_join(host, ghost, v_at, keyed=False)
    host.messages_to_send()
    v = _joiner(b"h167-victim", v_at, host.game_id)
    t = 0.0
    while v.phase == JOINING and t < 60.0:
        for dst, raw in v.messages_to_send():
            assert tuple(dst) == HOST
            host.receive_message(raw, v_at, t, None)
        assert _answers(host, v_at) == []  # never answered: it may be spoofed
        host.handle_timer(t)
        t += 0.5
        v.handle_timer(t)
    assert v.phase == ABORTED and t <= C.JOIN_TIMEOUT + 1.0
    assert host.stats["endpoint_taken"] >= 4  # its copies every JOIN_RESEND_S
    host.handle_timer(600.0)  # ten minutes on: the lobby is not full, the ghost is still seated
    assert host.phase == WAITING and ghost.identity.public_key in {p.public_key for p, _ in host.members()}


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
    from p2p.join_code import join_code_tag

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
