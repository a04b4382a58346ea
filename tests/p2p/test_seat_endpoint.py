"""Version 6 (H159): each seat names its own endpoint in the entry it signs, and a REJECT answers
one JOIN (protocol.md §C2.1 'Endpoints', 'REJECT answers one JOIN', §C2.2 step 2, §N3.1).

Pure functions and sans-I/O lobbies; no sockets."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p import const as C
from p2p.errors import WireError
from p2p.identity import Identity
from p2p.lobby import ABORTED, WAITING, Lobby
from p2p.reject import SENT_KEPT, JoinAnswers, answers_hash
from p2p.seat_endpoint import canonical_endpoint, endpoint_ok, same_endpoint
from p2p.wire import MSG_JOIN, MSG_REJECT, Join, decode_join, decode_reject, open_envelope, seal_message

HOST = ("10.0.0.1", 5000)
HOST_ID = Identity.from_seed(b"h159-host")


@given(st.ip_addresses(), st.integers(1, 65535))
def test_c2_1_an_endpoint_is_valid_exactly_in_its_one_canonical_form(ip, port):
    """§C2.1 'Endpoints': ``str(ipaddress.ip_address(host)) == host``, not unspecified, multicast,
    the IPv4 broadcast address, IPv4-mapped or scoped; any other text of the same address is
    refused (upper case, leading zeros, an uncompressed IPv6), so two peers compare bytes."""
    text = str(ip)
    plain = not (ip.is_unspecified or ip.is_multicast or text == "255.255.255.255"
                 or (ip.version == 6 and ip.ipv4_mapped is not None))
    assert endpoint_ok(text, port) == plain
    if ip.version == 6:
        assert not endpoint_ok(ip.exploded, port) or ip.exploded == text
        assert not endpoint_ok(text.upper(), port) or text.upper() == text
    else:
        assert not endpoint_ok(".".join("0%d" % int(b) for b in text.split(".")), port)
    assert not endpoint_ok(text, 0) and not endpoint_ok(text, 65536) and not endpoint_ok(text, True)


def test_c2_1_named_forms():
    assert endpoint_ok("192.168.1.20", 41000) and endpoint_ok("fd00::1:2", 1) and endpoint_ok("::1", 65535)
    for host in ("0.0.0.0", "::", "224.0.0.251", "ff02::fb", "255.255.255.255", "::ffff:10.0.0.1",
                 "fe80::1%eth0", "FD00::1", "fd00:0:0:0:0:0:0:1", "192.168.001.20", "host.local", "", " 10.0.0.1"):
        assert not endpoint_ok(host, 5000), host
    assert canonical_endpoint(("fd00:0::1:2", 7)) == ("fd00::1:2", 7)  # a socket's text, made canonical
    with pytest.raises(ValueError):
        canonical_endpoint(("0.0.0.0", 5000))  # a wildcard bind names no endpoint
    assert same_endpoint(("fd00::1", 5), ("fd00:0::1", 5, 0, 0))  # IPv6 source: a 4-tuple
    assert not same_endpoint(("10.0.0.2", 5), ("10.0.0.2", 6)) and not same_endpoint(("10.0.0.2", 5), None)


def test_c2_1_a_join_carries_the_endpoint_and_a_lobby_refuses_a_wildcard():
    lob = Lobby.join(Identity.from_seed(b"h159-j"), endpoint=("10.0.0.2", 6000), host_addr=HOST,
                     game_id=b"\x01" * 16, name="j", chain_length=8)
    (_, raw), = lob.messages_to_send()
    assert decode_join(open_envelope(raw).body).player.endpoint == ("10.0.0.2", 6000)
    with pytest.raises(ValueError):
        Lobby.join(Identity.from_seed(b"h159-j"), endpoint=("0.0.0.0", 6000), host_addr=HOST,
                   game_id=b"\x01" * 16, name="j", chain_length=8)


def _joiner(at=("10.0.0.2", 5000), **kw) -> Lobby:
    return Lobby.join(Identity.from_seed(b"h159-joiner"), endpoint=at, host_addr=HOST, game_id=kw.pop("gid"),
                      name="j", chain_length=8, host_keys=(HOST_ID.public_key, HOST_ID.x25519_public_key), **kw)


def test_c2_2_the_host_drops_a_join_not_sent_from_its_endpoint_before_its_signature():
    """§C2.2 step 2 (version 6): ``endpoint_mismatch``, no answer, no signature check."""
    host = Lobby.host(HOST_ID, edition="race", seats=3, name="h", endpoint=HOST, chain_length=8)
    j = _joiner(gid=host.game_id)
    raw = bytearray(j.admission.join_msg())
    raw[-1] ^= 1  # a bad signature: the endpoint check comes first
    host.receive_message(bytes(raw), ("10.0.0.3", 5000), 0.0, None)
    assert host.stats["endpoint_mismatch"] == 1 and "bad_signature" not in host.stats
    assert host.messages_to_send() == [] and len(host.members()) == 1
    host.receive_message(j.admission.join_msg(), ("10.0.0.2", 5000), 0.0, None)
    assert len(host.members()) == 2


def test_c2_1_a_rejects_answers_is_the_hash_of_the_join_it_refuses():
    """§C2.1 (version 6): REJECT 2 to a JOIN of another version answers that JOIN's envelope."""
    host = Lobby.host(HOST_ID, edition="race", seats=3, name="h", endpoint=HOST, chain_length=8)
    j = _joiner(gid=host.game_id)
    other = seal_message(j.identity, MSG_JOIN, Join(host.game_id, C.PROTOCOL_VERSION + 1, j.me))
    host.receive_message(other, ("10.0.0.2", 5000), 0.0, None)
    (dst, rej), = host.messages_to_send()
    env = open_envelope(rej)
    assert env.mtype == MSG_REJECT and decode_reject(env.body).answers == answers_hash(other)
    assert decode_reject(env.body).code == C.REJECT_VERSION
    # the joiner sent ``other`` in no attempt of its own: it does not believe the answer
    j.receive_message(rej, HOST, 0.0, HOST_ID.x25519_public_key)
    assert j.phase != ABORTED and j.stats["stale_reject"] == 1


def test_c2_1_a_joiner_believes_a_reject_of_any_join_of_this_attempt_only():
    """§C2.1: the JOINs of every round of this attempt (the last ``SENT_KEPT``); never another
    attempt's, though the same key signed it."""
    answers = JoinAnswers()
    sent = [answers.sent(b"join %d" % i) for i in range(SENT_KEPT + 3)]

    class R:
        def __init__(self, raw: bytes) -> None:
            self.answers = answers_hash(raw)

    assert all(answers.believes(R(r)) for r in sent[3:]) and not any(answers.believes(R(r)) for r in sent[:3])
    answers.sent(sent[-1])  # the same bytes again (a re-send): one entry
    assert answers.believes(R(sent[3]))
    with pytest.raises(WireError):
        decode_reject(b"\x95" + b"\xc4\x10" + bytes(16))  # a version-5 REJECT (5 fields) does not decode


def test_n3_1_the_removal_reject_answers_the_members_last_join():
    """§C2.2 step 7: the host's REJECT of a member it removes answers the last JOIN it took from
    it (the member believes it and stops), here a waiting member removed as stale."""
    host = Lobby.host(HOST_ID, edition="race", seats=3, name="h", endpoint=HOST, chain_length=8)
    j = _joiner(gid=host.game_id)
    host.receive_message(j.messages_to_send()[0][1], ("10.0.0.2", 5000), 0.0, j.identity.x25519_public_key)
    for _dst, raw in host.messages_to_send():
        j.receive_message(raw, HOST, 0.0, HOST_ID.x25519_public_key)
    assert j.phase == WAITING
    host.admission.remove([j.identity.public_key])
    (_dst, rej), = host.messages_to_send()
    assert decode_reject(open_envelope(rej).body).answers == answers_hash(j.admission.join_msg())
    j.receive_message(rej, HOST, 1.0, HOST_ID.x25519_public_key)
    assert j.phase == ABORTED


def test_canonical_text_is_pythons_rfc5952():
    assert str(ipaddress.ip_address("2001:db8:0:0:1:0:0:1")) == "2001:db8::1:0:0:1"  # the first longest run
    assert endpoint_ok("2001:db8::1:0:0:1", 1) and not endpoint_ok("2001:db8:0:0:1::1", 1)


def test_c2_2_a_stale_members_fresh_entry_cannot_take_another_members_endpoint():
    """§C2.2 step 2 'one member per endpoint', also for a member's fresh entry of a new round
    (step 7), which may come over its own keyed channel from any source (a MACed introduction
    needs no route back): a setup with two seats at one endpoint would not even encode."""
    host = Lobby.host(HOST_ID, edition="race", seats=3, name="h", endpoint=HOST, chain_length=8)
    a_at, b_at = ("10.0.0.2", 5000), ("10.0.0.3", 5000)
    ids = [Identity.from_seed(b"h159-a"), Identity.from_seed(b"h159-b")]
    for ident, at in zip(ids, (a_at, b_at)):
        j = Lobby.join(ident, endpoint=at, host_addr=HOST, game_id=host.game_id, name="x", chain_length=8)
        host.receive_message(j.admission.join_msg(), at, 0.0, ident.x25519_public_key)
    assert host.phase == "signing"
    host.restart_round([], 1.0)  # a new round: both members stale until their fresh entries
    b_again = Lobby.join(ids[1], endpoint=a_at, host_addr=HOST, game_id=host.game_id, name="x", chain_length=8)
    host.receive_message(b_again.admission.join_msg(), a_at, 1.0, ids[1].x25519_public_key)
    assert host.stats["endpoint_taken"] == 1 and ids[1].public_key in host.admission.stale
    for ident, at in zip(ids, (a_at, b_at)):  # their real fresh entries: proposed, one endpoint each
        j = Lobby.join(ident, endpoint=at, host_addr=HOST, game_id=host.game_id, name="x", chain_length=8)
        host.receive_message(j.admission.join_msg(), at, 2.0, ident.x25519_public_key)
    assert host.phase == "signing" and len({p.endpoint for p in host.setup.players}) == 3


def test_c2_2_a_dual_stack_hosts_ipv4_mapped_source_is_the_signed_ipv4_endpoint():
    """§C2.2 step 2 (RV15-L F2): a host on a dual-stack IPv6 socket sees an IPv4 joiner's datagram
    from ``('::ffff:10.0.0.2', port, 0, 0)``; the joiner signed ``10.0.0.2``: the same endpoint."""
    assert same_endpoint(("10.0.0.2", 5000), ("::ffff:10.0.0.2", 5000, 0, 0))
    assert same_endpoint(("10.0.0.2", 5000), ("::ffff:a00:2", 5000))
    assert not same_endpoint(("10.0.0.2", 5000), ("::ffff:10.0.0.3", 5000, 0, 0))
    assert not same_endpoint(("::ffff:0:a00:2", 5000), ("10.0.0.2", 5000))  # IPv4-translated is another address


def _v5_header(header: bytes, version: int, fields: int) -> bytes:
    """The sample log's header with its setup's version field and player entries' length changed."""
    import msgpack
    lhv, sb, sigs, seeds = msgpack.unpackb(header, raw=False)
    setup = msgpack.unpackb(sb, raw=False)
    setup[0], setup[6] = version, [p[:fields] for p in setup[6]]
    return msgpack.packb([lhv, msgpack.packb(setup, use_bin_type=True), sigs, seeds], use_bin_type=True)


@pytest.mark.parametrize("version, fields, said", [(5, 6, "the log is of protocol version 5; this program checks "
                                                    "version %d" % C.PROTOCOL_VERSION),
                                                   (4, 7, "the log is of protocol version 4"),
                                                   (C.PROTOCOL_VERSION, 6, "malformed header")])
def test_verify_names_the_version_of_a_log_it_does_not_check(tmp_path, version, fields, said):
    """§C2 'What changed in version 6' (RV15-L F1): ``lanopoli verify`` of a version-5 log (its
    player entries have 6 fields, so its setup does not even decode as ours) names its version;
    a header of our version with a broken setup is 'malformed'."""
    from pathlib import Path

    from p2p.gamelog import KIND_HEADER, LogReader, LogWriter
    from p2p.verify import verify_log
    sample = Path(__file__).resolve().parents[1] / "vectors" / "game.lnplog"
    header = next(r.payload for r in LogReader(sample) if r.kind == KIND_HEADER)
    path = tmp_path / "old.lnplog"
    with LogWriter(path, _v5_header(header, version, fields)):
        pass
    rep = verify_log(path)
    assert rep.first_bad_step == -1 and said in rep.error, rep.error
