"""Red team, session 10 (H94): join by code (protocol.md §N3.1) against a laptop that sees the
joiner's PROBE (same Wi-Fi, or on the path: the PROBE travels on a plain channel, the joiner has
no key of the host yet) and replays it to the host from its own address, whose channel it has
confirmed (it answers CHALLENGEs: it is a real machine).

Until H96, rule (1) of §N3.1 answered a PROBE at most once per ``PROBE_REPEAT_S`` per ``player.pk``,
whatever the source address (now per key and source address), after rule (0) (a confirmed channel) and before the signature; rule (3)
remembers the key only once the signature verified, "so a forged PROBE naming someone else's key
cannot silence it". A replayed PROBE is no forgery: its signature verifies, the host answers it
(to the attacker's address) and the joiner's own copies are ``probe_repeat`` for the next second.

Sans-I/O on ``p2p.faults.SimNetwork`` (0.5 ms one way), peers of ``test_lobby_loss.LobbyPeer``,
the host and the joiner by code of ``redteam_s9_kit.host_and_joiner``.
"""

from __future__ import annotations

from p2p import const as C
from p2p.endpoint import Endpoint
from p2p.faults import FaultPlan
from p2p.lobby import ABORTED, WAITING
from p2p.wire import MSG_STATUS, open_envelope

from redteam_s9_kit import HOST, JOINER, T_JOIN, host_and_joiner, network, spy

MALLORY_AT = ("10.9.0.66", 5000)


class Replayer:
    """The attacker's machine at MALLORY_AT: it opens (and confirms) a channel to the host at 0 s,
    and from the moment it sees the joiner's PROBE (``sniff``) it sends the host that PROBE at
    once, then again just as the key's ``PROBE_REPEAT_S`` window reopens (one host answer reaches
    it after each: it times the next copy from it, a few copies 1 ms apart until answered)."""

    def __init__(self, delay: float) -> None:
        self.ep = Endpoint(epoch=6666)
        self.ep.send(HOST, b"x")  # any first datagram: its channel earns the CHALLENGE, it answers
        self.delay = delay
        self.probe: bytes | None = None
        self.next_at: float | None = None
        self.answers = 0
        self.sent = 0

    def sniff(self, payload: bytes) -> None:
        if self.probe is None:
            self.probe = payload
            self._send()

    def _send(self) -> None:
        self.ep.send(HOST, self.probe)
        self.sent += len(self.probe)

    def receive_datagram(self, data: bytes, src: tuple, now: float) -> list:
        for _addr, payload in self.ep.receive_datagram(data, src, now):
            if open_envelope(payload, C.MAX_CATCHUP_MSG).mtype == MSG_STATUS:
                self.answers += 1
                # the host answered delay ago; its window for the key reopens PROBE_REPEAT_S later
                self.next_at = now - 2 * self.delay + C.PROBE_REPEAT_S + 1e-6
        return []

    def datagrams_to_send(self, now: float) -> list:
        return self.ep.datagrams_to_send(now)

    def get_timer(self) -> float | None:
        t = self.ep.get_timer()
        return self.next_at if t is None else (t if self.next_at is None else min(t, self.next_at))

    def handle_timer(self, now: float) -> None:
        self.ep.handle_timer(now)
        if self.next_at is not None and now >= self.next_at:
            self._send()
            self.next_at = now + 0.001  # until the next answer sets it again


def test_a_replayed_probe_from_another_confirmed_address_does_not_keep_the_joiner_out():
    """The rule (§N3.1, rule (3): a PROBE naming someone else's key cannot silence it): with the
    replayer at work from the joiner's first PROBE on, the honest joiner by code is answered and
    seated before JOIN_TIMEOUT. H94's break (strict xfail until H96): rule (1) counted the window per
    key whatever the address, so the replay answered first silenced every copy of the joiner (14
    PROBE copies, 3,680 B in 11 s; 'no answer from the host'); now per key and source address."""
    hp, jp = host_and_joiner()
    atk = Replayer(FaultPlan().delay)  # network() uses the plan's default delay
    spy(jp.lobby, lambda addr, raw, key: atk.sniff(raw) if addr is None else None)
    net = network({HOST: hp, MALLORY_AT: atk})
    net.run(until=T_JOIN)
    net.attach(JOINER, jp)
    while net.now < T_JOIN + C.JOIN_TIMEOUT + 1.0 and jp.lobby.phase not in (WAITING, ABORTED) and net.step():
        pass
    assert atk.probe is not None and atk.answers >= 1  # the attack ran: the host answered the replay
    assert jp.lobby.phase == WAITING, (jp.lobby.phase, hp.lobby.stats, atk.answers, atk.sent)
