"""The hostile laptop on the LAN (issue 10, H37; protocol.md parts N and C): what the red-team files
tests/p2p/test_redteam_lan_*.py share — the addresses and keys of the host, the victim and the attacker
(Mallory), the virtual clock's tick, a game id, and two tools: ``forge_intro`` (the introductions an
attacker can send from any source address) and ``bytes_to`` (what an endpoint sends a victim over
virtual time).

The attacker is on the same LAN: it can send datagrams from any source address, replay anything
it saw, hold keys of its own (so it can MAC introductions and sign lobby messages), and join a
lobby. Every attack is a test on real sans-I/O objects (endpoints, lobbies, watch servers)
on a virtual clock: a rule that holds is a plain test; a break is a strict xfail naming the exact
consequence and the owner of the fix (the board line "H37 BREAK ..." says the same).
"""

from __future__ import annotations

from p2p.channel_auth import KeyCache
from p2p.endpoint import Endpoint
from p2p.identity import Identity


HOST = ("127.0.0.2", 41000)
VICTIM = ("127.0.0.9", 7777)  # a machine that never asked for anything
HOST_ID = Identity.from_seed(b"h37-host")
MALLORY = Identity.from_seed(b"h37-mallory")
TICK = 0.05
GID = bytes(range(16))


def forge_intro(attacker: Identity, target: tuple, target_xk: bytes, payload: bytes, epoch: int = 77) -> list[bytes]:
    """The datagrams the holder of ``attacker``'s keys sends ``target`` to deliver ``payload``
    as its first contact: MACed introductions it can build from any source address."""
    ep = Endpoint(epoch=epoch, keys=KeyCache(attacker), accept_plain=False)
    ep.pin(target, target_xk)
    ep.send(target, payload)
    return [d for d, _ in ep.datagrams_to_send(0.0)]


def bytes_to(ep: Endpoint, victim: tuple, seconds: float, drive=None) -> int:
    """Bytes ``ep`` sends to ``victim`` over ``seconds`` of virtual time (nothing ever comes
    back from the victim); ``drive(now)`` runs before each tick (the owner's own sends)."""
    sent, now = 0, 0.0
    while now <= seconds:
        if drive is not None:
            drive(now)
        ep.handle_timer(now)
        sent += sum(len(d) for d, a in ep.datagrams_to_send(now) if a == victim)
        now += TICK
    return sent
