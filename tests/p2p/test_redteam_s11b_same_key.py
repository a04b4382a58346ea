"""Red team session 11, round 2 (H114): the host's same-key notice (protocol.md part L
``same_key``, §N3.1; H104/H108: "a player from ADDR tried to join with your own key ... use
--config-dir" in the waiting room) against a replayed PROBE. Sans-I/O ``Lobby``."""

from __future__ import annotations

from p2p.identity import Identity
from p2p.join_code import join_code_tag
from p2p.lobby import Lobby
from p2p.lobby_events import SameKeyJoin

VICTIM = Identity.from_seed(b"h114-victim")
ATTACKER = Identity.from_seed(b"h114-attacker")
ATTACKER_AT = ("10.0.0.9", 5000)


def test_a_replayed_probe_of_the_hosts_key_does_not_raise_the_same_key_notice():
    """BREAK #15 (LOW, a false alarm on the host's screen). A PROBE is a JOIN with the zero game
    id: nothing in it is fresh or names a game, and §N3.1 answers a replay from any confirmed
    address. The attacker hosts a game once that the victim joins by code, and keeps the
    victim's signed PROBE. Any later day, when the victim hosts, the attacker sends that PROBE
    over its own confirmed channel (keyed with its own X25519 key, not the PROBE's ``xk``) from
    a few ports: the host raises ``SameKeyJoin`` for each (shown once per address, up to
    ``SAME_KEY_REPORTS``): "a player from 10.0.0.9 tried to join with your own key", telling the
    host to change its key directory. Cost: one ~260 B datagram per notice. Suggested fix: count
    a same-key PROBE/JOIN only when its channel is keyed with the ``xk`` it names (a second
    player on our key directory holds our X25519 key too: its channel is keyed with it).

    FIXED (H116, §N3.1): a PROBE over a channel keyed with another key than its ``xk`` is dropped
    (``key_mismatch``) before anything else, as a JOIN is: no notice, no answer. (A second player
    on our key directory can key no channel with us, equal keys are refused (§N2.2): its PROBE
    comes plain, and still raises the notice, ``test_same_key_host.py``.)"""
    att_host = Lobby.host(ATTACKER, edition="classico", seats=3, name="att", endpoint=ATTACKER_AT,
                          chain_length=8)
    joiner = Lobby.join(VICTIM, endpoint=("10.0.0.2", 5000),
                        host_addr=ATTACKER_AT, game_id=None, name="me", chain_length=8, now=0.0,
                        code_tag=join_code_tag(att_host.game_id, ATTACKER.public_key))
    (_to, probe), = joiner.messages_to_send()  # what the attacker's host received from the victim
    host = Lobby.host(VICTIM, edition="classico", seats=3, name="me", endpoint=("10.0.0.1", 5000), chain_length=8)
    events: list = []
    emit = host.emit
    host.emit = lambda ev: (events.append(ev), emit(ev))
    for i in range(3):
        host.receive_message(probe, (ATTACKER_AT[0], 6000 + i), 100.0 + i, peer_key=ATTACKER.x25519_public_key,
                             confirmed=True)
    same = [ev for ev in events if isinstance(ev, SameKeyJoin)]
    assert not same, f"{len(same)} same-key notices from a replayed PROBE: {same}"
    assert host.stats["key_mismatch"] == 3 and "probes" not in host.stats and not host.messages_to_send()
