"""The resume point of a forgotten channel (protocol.md §N2.6 'Strangers', H86): what a later
channel to the same peer needs to go on after the ``Endpoint`` forgot this one, and how the
later channel goes on from it. ``transport.Channel.resume_point``/``resume`` call these on the
channel's parts (``PeerEpoch``, ``RecvStream``, ``SendStream``); the endpoint keeps the points.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from .channel_auth import PairKeys
    from .peer_epoch import PeerEpoch
    from .recv_stream import RecvStream
    from .send_stream import SendStream


class ResumePoint(NamedTuple):
    """A forgotten channel's resume point (a tuple, read by name)."""

    epoch: int | None
    """The peer's epoch (u32), or None: the next channel takes a fresh epoch of ours."""
    rx_next: int
    """The next seq expected from the peer; -1: the streams restart (see ``tx_next``)."""
    tx_next: int
    """The next seq we send; -1 (with ``rx_next``): the next channel restarts both streams."""
    keys: PairKeys | None
    """The channel's keys (``channel_auth.PairKeys``), None for a plain channel."""


def point_of(epoch: int | None, blank: bool, rx: RecvStream, tx: SendStream,
             keys: PairKeys | None) -> ResumePoint | None:
    """(peer ``epoch``, next seq expected from the peer, next seq we send, our ``keys``) when both
    streams are at a boundary (nothing held out of order nor half reassembled: the peer took
    every acknowledged chunk as delivered; nothing queued nor unacknowledged: it would be lost
    with this channel); otherwise the next seqs are -1 (the streams cannot go on: the next
    channel restarts them), and the epoch None if we sent but never heard the peer (H88). None
    without a stream (``blank``: nothing was accepted or sent, the epoch never proven)."""
    if epoch is None and tx.next_seq:
        # Sent and never heard (its answers lost): the peer may hold our chunks; the next
        # channel takes a fresh epoch so that it restarts (H88 review #1).
        return ResumePoint(None, -1, -1, keys)
    if epoch is None or blank:
        return None
    if rx.at_boundary and not (tx.queue or tx.inflight):
        return ResumePoint(epoch, rx.expected, tx.next_seq, keys)
    return ResumePoint(epoch, -1, -1, keys)


def resume_from(point: ResumePoint, peer: PeerEpoch, rx: RecvStream, tx: SendStream) -> None:
    """Go on from a forgotten channel's ``point`` on a new, empty channel's parts: its epoch is
    the peer's, as at first contact, and both streams continue where they stopped (next seqs -1:
    they start at 0 on the new channel's own epoch, which the endpoint made fresh, so the peer
    proves it and restarts its stream as for a restart of ours, §N2.2)."""
    if point.epoch is not None:
        peer.take(point.epoch)
    if point.rx_next >= 0:
        rx.resume_at(point.rx_next)
        tx.resume_at(point.tx_next)
