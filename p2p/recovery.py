"""Loss recovery of one transport channel (protocol.md §N2.4, §N2.5), as aioquic keeps its
``recovery.py`` apart from the connection: the round-trip estimators, the retransmission
timeout and its back-off, the time threshold of loss detection and the lossy regime.

A ``Recovery`` belongs to one ``transport.Channel`` and holds only numbers (seconds of the
channel's clock). The channel tells it what happened (an RTT sample, a timeout, an ack, a
resend, a loss found by a selective ack) and asks it for the RTOs and thresholds it applies
to its datagrams in flight; it never sees a datagram.

Two estimators (RFC 6298 §2, Karn's rule applied by the caller): one fed by datagrams the peer
acknowledges after a delay (the usual case, ``srtt``), one by datagrams sent with
``FLAG_ACK_NOW`` that the peer acknowledges at once (the bare round trip, used in the lossy
regime).
"""

from __future__ import annotations

__all__ = ["CLOCK_GRANULARITY", "INITIAL_RTO", "LOSS_HOLD", "LossClock", "MAX_RTO", "MIN_RTO", "PACKET_THRESHOLD",
           "PROMPT_MIN_RTO", "Recovery", "TIME_THRESHOLD"]

INITIAL_RTO = 0.050
"""RTO (s) before the first round-trip sample of its kind. A datagram sent without
``FLAG_ACK_NOW`` to a peer that has already acknowledged something (without a sample: Karn's
rule) waits ``MIN_RTO`` instead, the floor it would have with a sample: the peer is there and
may hold its ack for ``MAX_ACK_DELAY`` (50 ms, as long as ``INITIAL_RTO`` itself). With 50 ms
the host's second lobby datagram to a joiner by code, acknowledged after the delay, timed out
1 ms before the ack came: a second resend, the lossy regime at the game's start (H80; RFC 9002
§6.2.1 adds max_ack_delay to the PTO likewise). Before the peer acknowledged anything the RTO
stays 50 ms: a first datagram lost is resent soon (a joiner whose first introductions a flood
of fresh keys drained, §N2.6). (``INITIAL_RTO + MAX_ACK_DELAY`` = 100 ms was tried: the
simulated 20% loss row went 1.80x -> 1.90x clean; with ``MIN_RTO`` 1.76x.)"""
MIN_RTO = 0.080
"""Floor of the RTO (s) of a datagram sent without ``FLAG_ACK_NOW``: above ``MAX_ACK_DELAY``
plus a loaded machine's round trip, so that a delayed ack does not trigger a retransmission."""
PROMPT_MIN_RTO = 0.002
"""Floor of the RTO (s) of a datagram sent with ``FLAG_ACK_NOW``: the peer acknowledges it at
once, so its RTO follows a separate estimator fed only by such datagrams (the bare round trip)
and a lost datagram is resent after ~srtt + 4·rttvar of that, not after ``MIN_RTO``. 2 ms, not
the former 5 ms: on loopback a 4-seat step takes ~1.5 ms, so a 5 ms floor made each timeout cost
three steps; a loaded machine's late acks raise rttvar (and the RTO) by themselves, and a
spurious resend costs one datagram and its copies (issue 14: 20% loss 3.7x -> 2.3x clean in
the deterministic simulation of bench/bench_rows.py's loss row)."""
LOSS_HOLD = 0.5
"""Seconds a sender stays in its lossy regime (``FLAG_ACK_NOW`` on every data datagram) after a
resend that shows loss: one found lost by a selective ack, or a second resend within
``LOSS_HOLD`` s of the previous one (a lone timeout is most often a late ack, not a loss)."""
MAX_RTO = 1.0  # cap of the exponential backoff
CLOCK_GRANULARITY = 0.002  # RFC 6298 "G": floor of the variance term
PACKET_THRESHOLD = 3  # a datagram is lost once 3 later ones are acknowledged...
TIME_THRESHOLD = 9 / 8
"""...or once a later one is acknowledged and it was sent more than 9/8 of max(srtt, latest RTT)
ago (RFC 9002 §6.1.2): in lockstep a peer sends one datagram per step, so three later ones
never come while the step waits for the lost one."""
_MAX_BACKOFF = 16  # doublings of the RTO counted (MAX_RTO caps the result long before)


class LossClock:
    """The lossy regime shared by the channels of one endpoint (§N2.4): ``until`` (s) is the
    latest end of any channel's regime. Loss on a LAN is the interface's or the medium's, not
    one peer's: once one channel sees it, every channel to a peer that has acknowledged
    something sends with ``FLAG_ACK_NOW`` and copies, instead of each finding out by its own
    first loss (outside the regime a lockstep datagram lost waits for the 80 ms RTO: at the
    start of a game at 20% loss those waits were most of the lossy time, issue 14)."""

    __slots__ = ("until",)

    def __init__(self) -> None:
        self.until = -1.0


class Recovery:
    """RTT estimators, RTO back-off and lossy regime of one channel.

    Public read-only: ``srtt`` (s, of the delayed-ack estimator; None before its first
    sample) and ``resent_until`` (the lossy regime lasts while ``now`` is before it).
    """

    __slots__ = ("srtt", "_rttvar", "_rto", "_prompt", "_latest_rtt", "_min_rtt", "_backoff", "resent_until",
                 "_last_resend", "_lost_by_ack", "_answered", "_heard", "_rtos", "_clock")

    def __init__(self, clock: LossClock | None = None) -> None:
        #: The endpoint's shared regime (``LossClock``); a private one without an endpoint.
        self._clock = clock if clock is not None else LossClock()
        self.srtt: float | None = None  # from datagrams acknowledged after a delay (the usual)
        self._rttvar = 0.0
        self._rto = INITIAL_RTO
        self._prompt: list[float] | None = None  # [srtt, rttvar] of FLAG_ACK_NOW datagrams
        self._latest_rtt = 0.0
        self._min_rtt = 0.0  # smallest sample of either kind (0: none yet)
        self._backoff = 0
        self.resent_until = -1.0  # lossy regime: FLAG_ACK_NOW on data sent before this time
        self._last_resend = -1.0  # when we last resent something
        self._lost_by_ack = False  # the resends due were found lost by a selective ack
        self._answered = False  # the peer acknowledged something new since our last resend
        self._heard = False  # the peer has acknowledged something (its acks may be delayed)
        #: ``rtos()`` as last computed; None once a sample or the back-off changed it. The
        #: channel asks for it at every timer query (the per-datagram hot path).
        self._rtos: tuple[float, float] | None = None

    # -- RTO (§N2.5) --

    def rtos(self) -> tuple[float, float]:
        """(RTO of a datagram sent without ``FLAG_ACK_NOW``, RTO of one sent with it), each
        ·2^backoff and capped at ``MAX_RTO`` (s): from the estimator of its kind, floored at
        ``MIN_RTO`` or ``PROMPT_MIN_RTO``; ``INITIAL_RTO`` before that estimator has a sample
        (``MIN_RTO`` for the delayed kind once the peer acknowledged something).
        Returns the same tuple object until an RTO changes (never mutated in place):
        ``SendStream.next_due`` keys its cache on that identity."""
        r = self._rtos
        if r is not None:
            return r
        scale = 1 << self._backoff
        if self.srtt is not None:
            delayed = max(self._rto, MIN_RTO)
        else:
            delayed = MIN_RTO if self._heard else INITIAL_RTO
        p = self._prompt
        prompt = INITIAL_RTO if p is None else max(p[0] + max(CLOCK_GRANULARITY, 4 * p[1]), PROMPT_MIN_RTO)
        r = self._rtos = (min(delayed * scale, MAX_RTO), min(prompt * scale, MAX_RTO))
        return r

    def on_timeout(self) -> None:
        """Datagrams were declared lost by their RTO: the next RTOs are doubled."""
        self._backoff = min(self._backoff + 1, _MAX_BACKOFF)
        self._rtos = None

    @property
    def backed_off(self) -> bool:
        """True after a timeout until the peer acknowledges something new: it may be gone."""
        return self._backoff > 0

    def reset_backoff(self) -> None:
        """The back-off ends (the peer acknowledged something new, or a new instance of the
        peer came: nothing of the old stream is in flight)."""
        if self._backoff:
            self._backoff = 0
            self._rtos = None

    def acked(self, rtt: float | None, prompt: bool) -> bool:
        """The peer acknowledged something new: the back-off ends, and ``rtt`` (s), the round
        trip of the newest datagram acknowledged that was not retransmitted (Karn's rule; None
        if all were), feeds the estimator of its kind (``prompt``: it was sent with
        ``FLAG_ACK_NOW``). Returns True if a sample was taken (not for None, nor for a negative
        one: a clock that went back). One call per ack: this is the per-datagram hot path."""
        if self._backoff:
            self._backoff = 0
            self._rtos = None
        self._answered = True
        if not self._heard:
            self._heard = True
            self._rtos = None
        if rtt is None or rtt < 0:
            return False
        self._latest_rtt = rtt
        if rtt < self._min_rtt or not self._min_rtt:
            self._min_rtt = rtt
        self._rtos = None
        if prompt:
            p = self._prompt
            if p is None:
                self._prompt = [rtt, rtt / 2]
            else:
                p[1] = 0.75 * p[1] + 0.25 * abs(p[0] - rtt)
                p[0] = 0.875 * p[0] + 0.125 * rtt
            return True
        if self.srtt is None:
            self.srtt = rtt
            self._rttvar = rtt / 2
        else:
            self._rttvar = 0.75 * self._rttvar + 0.25 * abs(self.srtt - rtt)
            self.srtt = 0.875 * self.srtt + 0.125 * rtt
        # Floored when used (rtos).
        self._rto = min(self.srtt + max(CLOCK_GRANULARITY, 4 * self._rttvar), MAX_RTO)
        return True

    # -- loss detection (RFC 9002 §6.1) --

    def time_thresholds(self) -> tuple[float, float]:
        """(for delayed-ack datagrams, for ``FLAG_ACK_NOW`` ones): how long (s) before a later
        datagram was acknowledged an earlier one must have been sent to count as lost, at least
        1 ms. ``FLAG_ACK_NOW`` ones: ``TIME_THRESHOLD`` × max(their srtt, the latest sample).
        Delayed-ack ones: ``TIME_THRESHOLD`` × the bare round trip (the prompt srtt, else the
        smallest sample): the threshold allows for reordering on the path, and the peer's ack
        delay (up to ``MAX_ACK_DELAY``, in their srtt) says nothing about it — the ack that
        shows the hole was sent at once (a gap). With their srtt (~50 ms) a lockstep datagram
        lost on a channel outside the lossy regime waited for the 80 ms RTO although the next
        step's datagram showed the hole 1.5 ms later: 2% of the steps at 20% loss, 60% of the
        time (issue 14, bench_rows.loss_simulation)."""
        late = self._latest_rtt
        p = self._prompt
        delayed = max(TIME_THRESHOLD * (p[0] if p else self._min_rtt), 0.001)
        prompt = max(TIME_THRESHOLD * max(p[0] if p else 0.0, late), 0.001)
        return delayed, prompt

    def found_lost(self) -> None:
        """A selective ack showed a hole: the resends it causes are evidence of loss."""
        self._lost_by_ack = True

    # -- lossy regime (§N2.4) --

    def on_resend(self, now: float) -> None:
        """Datagrams are resent at ``now``. The lossy regime starts on evidence of loss: a
        hole the peer's selective ack showed, or a second resend within ``LOSS_HOLD`` with an ack
        of something new in between. A lone timeout is most often a peer process that waited
        for a core (spurious): starting the regime for it would cost a pure ack per datagram for
        ``LOSS_HOLD`` s (issue 14). So is a peer silent for two RTOs in a row (its datagram
        resent twice, nothing acknowledged between): at 8 seats joined by code a joiner busy
        for ~300 ms before its first ack put the host's channel in the regime at the game's
        start, and on a loaded machine it stayed there (H80). A hole extends the endpoint's
        shared regime (``LossClock``) too."""
        if self._lost_by_ack or (now - self._last_resend < LOSS_HOLD and self._answered):
            self.resent_until = now + LOSS_HOLD
            if self._lost_by_ack and self.resent_until > self._clock.until:
                # Only a hole the peer showed spreads to the other channels: timeouts on a loaded
                # machine are mostly late acks, and at 8 seats they put every channel in the
                # regime (a pure ack per datagram and copies: 1.2-1.7x the floor's datagrams).
                self._clock.until = self.resent_until
        self._last_resend = now
        self._lost_by_ack = False
        self._answered = False

    def lossy(self, now: float) -> bool:
        """True while the lossy regime lasts: this channel's, or the endpoint's (``LossClock``)
        for a peer that has acknowledged something (a round-trip sample: never for an address
        that never answered, e.g. a spoofed one)."""
        return now < self.resent_until or (now < self._clock.until and self._min_rtt > 0.0)

    def copies(self, now: float) -> int:
        """How many times each data datagram, new or resent, goes out at ``now`` (the same bytes
        back to back, protocol.md §N2.4): 1 outside the lossy regime; 2 in it (a loss costs a
        timeout only when both copies are lost: p² instead of p). A peer that left two RTOs in a
        row unanswered gets one: copies help against loss, not against a peer that is gone.
        (Three copies while a datagram sent with its copy was lost again were tried: at 20% loss
        1.42x instead of 1.83x clean in ``bench_rows.loss_simulation``, for 54 datagrams and 22
        duplicates received per 4-seat step instead of 41 and 11: not kept.)"""
        return 1 if not self.lossy(now) or self._backoff >= 2 else 2
