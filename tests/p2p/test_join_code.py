"""Join by code (protocol.md §N3.1): a short code ``ADDRESS:PORT/XXXXX-XXXXX`` whose 50-bit tag
binds the game id and the host's key; the joiner probes for the host's signed STATUS and
believes it only if it matches the tag, then joins as usual."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, strategies as st

from p2p import const as C
from p2p.join_code import CODE_BITS, format_code, join_code, join_code_tag, parse_code_tag
from p2p.identity import Identity
from p2p.lobby import ABORTED, STARTED, Lobby, LobbyAborted
from p2p.wire import MSG_STATUS, seal

from p2p_harness import addr, drain, pump_lobbies


def test_tag_is_the_first_50_bits_of_the_spec_hash():
    gid, pk = bytes(range(16)), bytes(range(32, 64))
    h = hashlib.sha256(b"lanopoli/1/join-code\x00" + gid + pk).digest()
    assert join_code_tag(gid, pk) == int.from_bytes(h, "big") >> (256 - 50)


@given(st.integers(0, 2 ** CODE_BITS - 1))
def test_code_round_trips_and_reads_forgivingly(tag):
    code = format_code("192.168.1.20", 40000, tag)
    where, part = code.split("/")
    assert where == "192.168.1.20:40000" and len(part) == 11 and part[5] == "-"
    assert parse_code_tag(part) == tag
    assert parse_code_tag(part.lower().replace("-", " ")) == tag
    assert parse_code_tag(part.replace("0", "O").replace("1", "l")) == tag


@pytest.mark.parametrize("bad", ["", "ABCDE", "ABCDE-FGHJU", "ABCDE-FGHJKM"])
def test_bad_code_is_refused(bad):
    with pytest.raises(ValueError):
        parse_code_tag(bad)


def _host(n=2):
    host = Lobby.host(Identity.from_seed(b"\x00"), edition="race", seats=n, name="Giulia", endpoint=addr(0),
                      demo_seed=b"demo", chain_length=16)
    return host, join_code_tag(host.game_id, host.identity.public_key)


def test_joiner_by_code_probes_checks_the_tag_and_joins():
    host, tag = _host()
    joiner = Lobby.join(Identity.from_seed(b"\x01"), endpoint=addr(1), host_addr=addr(0), game_id=None, name="Marco",
                        demo_seed=b"demo", chain_length=16, code_tag=tag)
    lobbies = {addr(0): host, addr(1): joiner}
    pump_lobbies(lobbies)
    assert host.phase == joiner.phase == STARTED
    assert joiner.game_id == host.game_id and host.stats["probes"] == 1
    assert {p.name for p in joiner.setup.players} == {"Giulia", "Marco"}


def test_an_impostor_answering_the_probe_is_not_believed():
    """Someone else at the host's address (or spoofing it) answers with a STATUS signed by its
    own key: the tag does not match, the STATUS is dropped (not_host), the joiner keeps waiting
    and times out rather than joining the impostor."""
    host, tag = _host()
    mallory = Identity.from_seed(b"mallory")
    joiner = Lobby.join(Identity.from_seed(b"\x01"), endpoint=addr(1), host_addr=addr(0), game_id=None, name="Marco",
                        chain_length=16, code_tag=tag)
    joiner.messages_to_send()
    fake = seal(mallory, MSG_STATUS, [bytes(16 * [7]), "race", 2, 1, ["Giulia"], mallory.public_key,
                                      mallory.x25519_public_key])
    joiner.receive_message(fake, addr(0), 0.0)
    assert joiner.stats["not_host"] == 1 and joiner.messages_to_send() == []
    # the real host's key with another game id (a stale code, another game on that port)
    other = seal(host.identity, MSG_STATUS, [bytes(16 * [7]), "race", 2, 1, ["Giulia"], host.identity.public_key,
                                             host.identity.x25519_public_key])
    joiner.receive_message(other, addr(0), 0.0)
    assert joiner.stats["not_host"] == 2
    joiner.handle_timer(C.JOIN_TIMEOUT + 1)
    assert joiner.phase == ABORTED


def test_a_matching_status_with_a_bad_signature_is_dropped():
    host, tag = _host()
    joiner = Lobby.join(Identity.from_seed(b"\x01"), endpoint=addr(1), host_addr=addr(0), game_id=None, name="Marco",
                        chain_length=16, code_tag=tag)
    raw = bytearray(host.admission.status_msg())
    raw[-1] ^= 1
    joiner.receive_message(bytes(raw), addr(0), 0.0)
    assert joiner.stats["bad_signature"] == 1 and joiner.game_id == C.PROBE_GAME_ID


def test_probe_to_a_full_lobby_gets_a_reject_the_joiner_believes():
    host, tag = _host(2)
    lobbies = {addr(0): host, addr(1): Lobby.join(Identity.from_seed(b"\x01"), endpoint=addr(1), host_addr=addr(0),
                                                   game_id=host.game_id, name="Marco", chain_length=16)}
    pump_lobbies(lobbies)
    late = Lobby.join(Identity.from_seed(b"late"), endpoint=addr(9), host_addr=addr(0), game_id=None, name="late",
                      chain_length=16, code_tag=tag)
    lobbies[addr(9)] = late
    pump_lobbies(lobbies)
    ab = [e for e in drain(late) if isinstance(e, LobbyAborted)]
    assert late.phase == ABORTED and ab[0].reject_code == C.REJECT_FULL


def test_probes_are_answered_at_most_probe_rate_per_second():
    host, tag = _host(4)
    probes = [Lobby.join(Identity.from_seed(b"p%d" % i), endpoint=addr(5), host_addr=addr(0), game_id=None, name="p",
                         chain_length=16, code_tag=tag).messages_to_send()[0][1] for i in range(20)]
    for probe in probes:  # 20 joiners' keys at once
        host.receive_message(probe, addr(5), 0.0, confirmed=True)
    assert len(host.messages_to_send()) == C.PROBE_RATE and host.stats["probe_limit"] == 20 - C.PROBE_RATE
    host.receive_message(probes[-1], addr(5), 1.0, confirmed=True)  # a second later the bucket has refilled
    assert len(host.messages_to_send()) == 1


def test_a_replayed_probe_is_answered_once_per_repeat_interval():
    """One joiner key is answered at most once per PROBE_REPEAT_S, however often its PROBE
    comes (H37: a replay flood took the whole budget), before any signature check."""
    host, tag = _host(4)
    probe = Lobby.join(Identity.from_seed(b"p"), endpoint=addr(5), host_addr=addr(0), game_id=None, name="p",
                       chain_length=16, code_tag=tag).messages_to_send()[0][1]
    for _ in range(100):
        host.receive_message(probe, addr(5), 0.0, confirmed=True)
    assert len(host.messages_to_send()) == 1 and host.stats["probe_repeat"] == 99
    host.receive_message(probe, addr(5), C.PROBE_REPEAT_S, confirmed=True)
    assert len(host.messages_to_send()) == 1


def test_the_hosts_join_code_is_its_address_and_the_tag_of_its_game_and_key():
    """protocol.md §N3.1: the code a host shows = ADDRESS:PORT/ + the tag of (game id, host key)."""
    gid, pk = bytes(range(16)), bytes(range(32, 64))
    code = join_code("10.0.0.2", 4242, gid, pk)
    assert code == format_code("10.0.0.2", 4242, join_code_tag(gid, pk))
    assert parse_code_tag(code.split("/", 1)[1]) == join_code_tag(gid, pk)
