"""Red team session 14 on main (H156): joins by code (protocol.md §N3.1) against a spoofer that
holds one REJECT the host really signed.

A PROBE is a JOIN with the zero game id (§N3.1): nothing in it names the host or the game, so a
PROBE the victim once sent to ANY lobby (the attacker's own, joined by code an hour earlier)
is a valid PROBE at every host. The host answers a PROBE, while its lobby is not open, with a
REJECT code 1 naming the probe's key, signed, of its current game id; the answer goes to the
confirmed address the PROBE came from, here the attacker's own. While a joiner by code probes,
its channel to the host is plain (it knows no key of the host) and it takes "every STATUS and
REJECT, whatever its gid" to the tag check, then the host's signature: a REJECT of the code's
game signed by the host passes both, whoever sent the datagram.

Version 6 (H159) closes it: a REJECT's ``answers`` names the one PROBE/JOIN it answers and a
joiner believes only a REJECT answering one of its current attempt (§C2.1 'REJECT answers one
JOIN'); every attempt's PROBE bytes are fresh (new chain head and seed commitment).

Sans-I/O lobbies and endpoints on ``p2p.faults.SimNetwork``'s virtual clock
(tests/p2p/redteam_s9_kit.py)."""

from __future__ import annotations

from p2p import const as C
from p2p import transport as T
from p2p.identity import Identity
from p2p.join_code import join_code_tag
from p2p.lobby import ABORTED, WAITING, Lobby
from p2p.wire import MSG_REJECT, open_envelope

from redteam_s9_kit import HOST, HOST_ID, JOINER, JOINER_ID, host_and_joiner, network

ATTACKER = ("10.9.0.66", 6000)


def _reject_for_the_victim(host: Lobby, probe: bytes) -> bytes:
    """The attacker closes the host's lobby (4 seats) with 3 fresh keys of its own, from 3 ports
    (confirmed channels, keyed with each key); the host proposes and signs (closed). It replays
    the victim's PROBE from a 4th port: the host answers REJECT code 1 naming the victim's key,
    signed, of this game. Its keys never sign; at SETUP_TIMEOUT the host removes and bans them
    and opens a new round with 3 free seats (§C2.2 step 7). Returns the REJECT."""
    for i in range(3):
        sybil = Identity.from_seed(b"h156-sybil-%d" % i)
        lob = Lobby.join(sybil, endpoint=(ATTACKER[0], ATTACKER[1] + 1 + i),
                         host_addr=HOST, game_id=host.game_id, name="s%d" % i, chain_length=8)
        (_, join), = lob.messages_to_send()
        host.receive_message(join, (ATTACKER[0], ATTACKER[1] + 1 + i), 0.0, sybil.x25519_public_key, True)
    host.messages_to_send()
    assert host.phase == "signing"
    host.receive_message(probe, ATTACKER, 0.1, None, True)
    (reject,) = [r for a, r in host.messages_to_send() if a == ATTACKER]
    assert open_envelope(reject, C.MAX_LOBBY_MSG).mtype == MSG_REJECT
    host.handle_timer(C.SETUP_TIMEOUT + 0.5)
    host.messages_to_send()
    assert host.phase == "waiting" and host.stats["removed"] == 3
    return reject


def _run(attack: bool, same_attempt: bool = False):
    """The honest joiner by code starts at 0 (its first PROBE at once). With ``attack``, the
    attacker sprays the REJECT as a plain DATA datagram from the host's address to the joiner's
    address, one every 0.1 ms for 10 ms from 0: ``src_epoch`` = the host's endpoint epoch (the
    same on every channel of the host: the attacker reads it in any datagram the host sent it),
    ``dst_epoch`` 0 (not heard from us yet), ``seq`` 0. The replayed PROBE is the victim's from an
    earlier attempt (another ``Lobby`` of its key: what it sent the attacker's lobby long ago), or
    with ``same_attempt`` the very PROBE of this attempt (only an attacker on the path has it)."""
    hp, jp = host_and_joiner()
    if same_attempt:
        probe = jp.lobby.admission.join_msg()
    else:
        earlier = Lobby.join(JOINER_ID, endpoint=JOINER, host_addr=HOST, game_id=None, name="j", chain_length=8,
                             code_tag=join_code_tag(hp.lobby.game_id, HOST_ID.public_key))
        probe = earlier.admission.join_msg()
    reject = _reject_for_the_victim(hp.lobby, probe)
    net = network({HOST: hp, JOINER: jp})
    if attack:
        host_epoch = hp.ep.epoch
        for i in range(100):
            net.inject(HOST, JOINER, T.HEADER.pack(T.MAGIC, T.FLAG_DATA, host_epoch, 0, 0, 0, 0) + reject,
                       delay=0.0001 * i)
    while net.now < C.JOIN_TIMEOUT + 1.0 and jp.lobby.phase not in (WAITING, ABORTED) and net.step():
        pass
    return hp, jp


def test_n3_1_premise_the_joiner_by_code_is_seated():
    hp, jp = _run(attack=False)
    assert jp.lobby.phase == WAITING and jp.aborted is None


def test_n3_1_a_replayed_reject_spoofed_from_the_hosts_address_keeps_a_joiner_by_code_out():
    """§N3.1 'What holds': anyone answering at the host's address or spoofing it, 'with any gid
    ... and any message type', must find a key and a non-zero game id with the same 50-bit tag
    to move a joiner by code. It need not: one REJECT the host signed is enough. The attacker
    got it by replaying the victim's old PROBE (zero gid: valid at every host; the victim once
    probed the attacker's own lobby) while its own 3 fresh keys held the seats (the host
    removes them at SETUP_TIMEOUT and reopens, §C2.2 step 7). When the victim types the code,
    the attacker sprays the REJECT as plain datagrams from the host's address (the host's epoch,
    seq 0): one lands before the host's STATUS, the probing joiner checks the tag (the right
    game) and the host's signature (genuine), and aborts 'rejected by the host: the lobby is
    full' — at every attempt, for as long as that game id lives. Without it: seated. Cost: the
    victim's port and the moment it probes (seen on the path, or guessed: the window is the
    probing round trip, longer under loss), one REJECT per victim key. [LOW]
    Fix ideas: while probing, a REJECT is believed only if it answers this attempt (a nonce of
    the PROBE echoed: wire change), or a REJECT while probing only stops the re-sends for a
    second and the joiner keeps probing until JOIN_TIMEOUT, ending with the REJECT's text only
    if no STATUS came (an honest closed lobby then answers in JOIN_TIMEOUT, not at once)."""
    hp, jp = _run(attack=True)
    assert jp.aborted is None, jp.aborted
    assert jp.lobby.phase == WAITING and jp.lobby.stats["stale_reject"] >= 1


def test_n3_1_a_reject_answering_this_attempts_probe_is_still_believed():
    """The limit §N3.1 states: a REJECT the host signs for the joiner's CURRENT PROBE (an attacker
    on the path that replays it at once) answers it and ends the attempt, as the host's own answer
    would; the attacker could as well drop the host's datagrams."""
    hp, jp = _run(attack=True, same_attempt=True)
    assert jp.lobby.phase == ABORTED and "full" in jp.aborted.reason
