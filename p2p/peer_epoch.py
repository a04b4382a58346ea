"""Which instance of the peer a channel talks to (protocol.md §N2.2): one ``PeerEpoch`` per
``transport.Channel``, which alone calls it.

The peer's epoch is taken at first contact, or while nothing was accepted nor sent (nothing to
protect); once data flowed a new epoch is believed only when proven (a RESPONSE echoing our
nonce, ``channel_auth.EpochProof``), and the epochs it replaced are remembered
(``RETIRED_EPOCHS``) so that their stragglers are dropped. This module keeps that state and
decides which streams start again on a proven new epoch; the channel resets them.
"""

from __future__ import annotations

from collections import deque

RETIRED_EPOCHS = 4  # epochs of earlier instances of a peer remembered to drop their stragglers


class PeerEpoch:
    """The peer's current epoch (``current``: u32, None before first contact), whether it was
    ever proven (``proven``: it answered a nonce of ours, never replaced unproven), its retired
    epochs and what an unproven new epoch acknowledged of our stream. Read ``current`` and
    ``proven``; change them only through the methods."""

    __slots__ = ("current", "proven", "_retired", "_acked_by")

    def __init__(self) -> None:
        self.current: int | None = None
        self.proven = False
        self._retired: deque[int] = deque(maxlen=RETIRED_EPOCHS)
        #: (unproven epoch, the highest ack of our stream its dropped datagrams carried).
        self._acked_by: tuple[int, int] | None = None

    def take(self, epoch: int) -> None:
        """Take ``epoch`` unproven: first contact, nothing to protect yet, or a resumed channel's
        peer (``Channel.resume``)."""
        self.current = epoch

    def checked(self) -> None:
        """The current epoch answered a nonce of ours (the return-routability challenge, §N2.6)."""
        self.proven = True

    def is_retired(self, epoch: int) -> bool:
        """Whether ``epoch`` is one of the last ``RETIRED_EPOCHS`` the peer's proofs replaced."""
        return epoch in self._retired

    def unproven(self, epoch: int, ack: int) -> None:
        """A datagram of ``epoch`` (not the current one, not yet proven) was dropped; remember the
        highest ``ack`` of our stream it carried (0: none), for ``replace``."""
        if ack:
            seen = self._acked_by
            self._acked_by = (epoch, max(ack, seen[1] if seen and seen[0] == epoch else 0))

    def replace(self, epoch: int, next_seq: int) -> bool | None:
        """The peer proved ``epoch``, a new instance: it becomes current and proven, the one it
        replaces is retired. Returns None when there was none (nothing to restart), True when
        both directions start again from seq 0, False when only the peer's does: the epoch it
        replaces was never proven (taken at first contact: perhaps a forged datagram's) and this
        one already acknowledged our stream within what we sent (``next_seq``: our next seq), so
        it is the peer we were talking to all along and our stream goes on (H86: else it
        restarted our stream alone, and the peer dropped our next chunks as duplicates)."""
        acked_by, self._acked_by = self._acked_by, None
        old = self.current
        self.current = epoch
        was_proven, self.proven = self.proven, True
        if old is None:
            return None
        self._retired.append(old)
        same_peer = (not was_proven and acked_by is not None and acked_by[0] == epoch
                     and acked_by[1] <= next_seq)
        return not same_peer
