"""Red team session 15 (H167) on protocol version 6: signed endpoints (protocol.md §C2.1 'Endpoints',
'What signed endpoints hold against', §C2.2 step 2); REJECT answers: test_redteam_s15v6_reject.py.

The attacker is one laptop on the LAN that spoofs any source address and signs with keys of its
own: a joiner naming the host's or a seated joiner's endpoint, a JOIN whose endpoint is not its
source (in the forms a socket gives: IPv6 4-tuples, uncompressed text, a scope), a ghost squatting
a later joiner's endpoint (on a host without H170's confirmed-channel rule, and with it). Sans-I/O
lobbies, no socket, no clock: every test is a few lobbies driven by hand.
"""

from __future__ import annotations

import pytest

from p2p import const as C
from p2p.identity import Identity
from p2p.lobby import ABORTED, JOINING, NO_ANSWER, WAITING, Lobby
from p2p.lobby_events import LobbyAborted
from p2p.wire import MSG_STATUS, open_envelope

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


def test_c2_1_on_a_host_without_the_confirmed_channel_rule_a_squatted_endpoint_keeps_its_later_joiner_out():
    """The squatter, on a host WITHOUT the rule of §C2.2 step 2 'Seated over a confirmed channel' (H170
    closed it, §C2.1 'Safe against a squatter'; here ``confirmed=None``: a caller with no transport,
    which seats a new member at once): what the rule is for, and its extent then. A ghost whose JOIN is
    spoofed from V's endpoint before V joins is seated there; V's own JOIN, copied every
    JOIN_RESEND_S, is ``endpoint_taken`` with no answer, so V gives up at JOIN_TIMEOUT (10 s) with
    "no answer from the host". The ghost is removed only at SETUP_TIMEOUT of a full lobby's round
    (§C2.2 step 7): while a seat is free it stays (a waiting member has no deadline). The attacker
    must know V's port in advance (a node's game port is a free one, shown only by its datagrams).
    With the rule: ``test_c2_1_with_the_confirmed_channel_rule_the_squatter_seats_nobody`` (RV16-C F4)."""
    host = _host(seats=3)
    v_at = ("10.0.0.7", 41234)
    ghost = _joiner(b"h167-squat", v_at, host.game_id)
    host.receive_message(ghost.admission.join_msg(), v_at, 0.0, None, None)  # no transport: seated at once
    host.messages_to_send()
    v = _joiner(b"h167-victim", v_at, host.game_id)
    t = 0.0
    while v.phase == JOINING and t < 60.0:
        for dst, raw in v.messages_to_send():
            assert tuple(dst) == HOST
            host.receive_message(raw, v_at, t, None, None)
        assert _answers(host, v_at) == []  # never answered: it may be spoofed
        host.handle_timer(t)
        t += 0.5
        v.handle_timer(t)
    assert v.phase == ABORTED and t <= C.JOIN_TIMEOUT + 1.0
    events = []
    while (ev := v.next_event()) is not None:
        events.append(ev)
    assert [e.reason for e in events if isinstance(e, LobbyAborted)] == [NO_ANSWER]
    assert host.stats["endpoint_taken"] >= 4  # its copies every JOIN_RESEND_S
    host.handle_timer(600.0)  # ten minutes on: the lobby is not full, the ghost is still seated
    assert host.phase == WAITING and ghost.identity.public_key in {p.public_key for p, _ in host.members()}


def test_c2_1_with_the_confirmed_channel_rule_the_squatter_seats_nobody():
    """§C2.1 'Safe against a squatter', §C2.2 step 2 (RV16-C F4: the test above, on a host with the
    rule): the ghost's JOIN spoofed from V's endpoint came over a channel that never confirms (the ghost
    does not receive there): dropped unanswered (``join_unconfirmed``). V's JOIN over its confirmed
    channel is seated at once, answered with the STATUS; the ghost never is."""
    host = _host(seats=3)
    v_at = ("10.0.0.7", 41234)
    ghost = _joiner(b"h167-squat", v_at, host.game_id)
    for keyed in (False, True):
        xk = ghost.identity.x25519_public_key if keyed else None
        host.receive_message(ghost.admission.join_msg(), v_at, 0.0, xk, False)
        assert _answers(host, v_at) == []
    assert host.stats["join_unconfirmed"] == 2 and len(host.members()) == 1
    v = _joiner(b"h167-victim", v_at, host.game_id)
    host.receive_message(v.admission.join_msg(), v_at, 0.1, v.identity.x25519_public_key, True)
    assert _answers(host, v_at) == [MSG_STATUS]
    assert {p.public_key for p, _ in host.members()} == {HOST_ID.public_key, v.identity.public_key}
