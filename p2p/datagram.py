"""The transport's datagram format (protocol.md §N2.1, §N2.2): header, magic bytes, flags, the
three forms of a datagram and the framer that builds them.

Every datagram starts with the 22-byte ``HEADER``. A *plain* datagram (``MAGIC``) is header then
chunk; an *authenticated* one (``MAGIC_AUTH``) is header, chunk, 16-byte MAC; an *introduction*
(``MAGIC_INTRO``) is header, the sender's 32-byte X25519 key, chunk, MAC (``p2p.channel_auth``).
This module only names the format and builds datagrams; parsing, authentication and the rules
of each flag are the channel's (``p2p.transport``), its send side's (``p2p.send_stream``) and
its receive side's (``p2p.recv_stream``).
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable

from .channel_auth import TAG_LEN, XKEY_LEN, PairKeys, mac, mac_ok

__all__ = ["ACK_BITS", "Addr", "FLAG_ACK_NOW", "FLAG_CHALLENGE", "FLAG_DATA", "FLAG_MORE",
           "FLAG_RESPONSE", "Frame", "HEADER", "HEADER_SIZE", "KNOWN_FLAGS", "MAGIC", "MAGIC_AUTH",
           "MAGIC_INTRO", "MAX_CHUNK", "MAX_DATAGRAM", "MAX_MESSAGE", "MAX_SEQ", "PROBE_FLAGS",
           "framer", "new_epoch", "tag_ok"]

Addr = tuple[str, int]
"""A UDP address: (host, port)."""

MAGIC = 0xB1
"""First header byte of a *plain* datagram: high nibble 0xB marks lanopoli's transport, low
nibble 1 = unauthenticated (lobby-time channels only)."""
MAGIC_AUTH = 0xB2
"""First byte of an authenticated datagram: header, chunk, 16-byte MAC."""
MAGIC_INTRO = 0xB3
"""First byte of an introduction: header, the sender's 32-byte X25519 key, chunk, MAC."""
HEADER = struct.Struct("!BBIIIII")
"""magic u8, flags u8, src_epoch u32, dst_epoch u32, seq u32, ack u32, ack_bits u32 —
network byte order."""
HEADER_SIZE = HEADER.size  # 22
MAX_DATAGRAM = 1200
"""Largest datagram sent, header included (fits one Ethernet frame with any IP/UDP headers)."""
MAX_CHUNK = MAX_DATAGRAM - HEADER_SIZE - XKEY_LEN - TAG_LEN  # 1130, whatever the form
FLAG_DATA = 0x01
"""The datagram carries a chunk with sequence number ``seq``; without it, a pure ack."""
FLAG_MORE = 0x02
"""More chunks of the same payload follow (only with FLAG_DATA)."""
FLAG_CHALLENGE = 0x04
"""Pure ack only: ``seq`` is a random non-zero nonce; the instance ``dst_epoch`` must echo it
in a RESPONSE to prove it is alive (a new epoch is believed only then)."""
FLAG_RESPONSE = 0x08
"""Pure ack only: ``seq`` echoes the nonce of a CHALLENGE addressed to our epoch."""
FLAG_ACK_NOW = 0x10
"""Only with FLAG_DATA: acknowledge this datagram at once, not after ``MAX_ACK_DELAY``. The
sender sets it while it is in its lossy regime (it resent something in the last
``LOSS_HOLD`` s), so that its RTO can follow the bare round trip (protocol.md §N2.4, §N2.5)."""
KNOWN_FLAGS = FLAG_DATA | FLAG_MORE | FLAG_CHALLENGE | FLAG_RESPONSE | FLAG_ACK_NOW
"""Any other flag bit makes a datagram malformed."""
PROBE_FLAGS = FLAG_CHALLENGE | FLAG_RESPONSE
ACK_BITS = 32
"""Bit i of ack_bits acknowledges datagram ``ack + 1 + i``."""
MAX_SEQ = 0xFFFFFFFF
MAX_MESSAGE = 72 * 1024
"""Bytes per payload. The largest legitimate message is a CATCHUP_RESP (64 KiB,
``const.MAX_CATCHUP_MSG``); lobby messages are at most 16 KiB (a SETUP_SIG with the
hidden-information leaves of protocol.md §C12.2 is ~11.7 KB). 8 KiB of margin. Kept small on
purpose: every channel, even one opened by an unauthenticated stranger, may buffer this much."""

Frame = Callable[[int, int, int, int, int, bytes], bytes]
"""(flags, dst_epoch, seq, ack, ack_bits, chunk) -> the datagram's bytes."""


def new_epoch() -> int:
    """A random non-zero 32-bit epoch for a new endpoint instance."""
    return int.from_bytes(os.urandom(4), "big") or 1


def framer(epoch: int, keys: PairKeys | None, my_xk: bytes, introduce: bool) -> Frame:
    """The ``Frame`` of a channel whose endpoint has ``epoch``: plain without ``keys``, else an
    introduction carrying ``my_xk`` (our X25519 public key, 32 bytes) while ``introduce``, else
    authenticated; the MAC is ``channel_auth.mac(keys.send, every byte before it)`` (§N2.2)."""
    pack = HEADER.pack
    if keys is None:
        return lambda flags, dst, seq, ack, bits, chunk: pack(MAGIC, flags, epoch, dst, seq, ack, bits) + chunk
    key = keys.send
    if introduce:
        def frame(flags: int, dst: int, seq: int, ack: int, bits: int, chunk: bytes) -> bytes:
            msg = pack(MAGIC_INTRO, flags, epoch, dst, seq, ack, bits) + my_xk + chunk
            return msg + mac(key, msg)
    else:
        def frame(flags: int, dst: int, seq: int, ack: int, bits: int, chunk: bytes) -> bytes:
            msg = pack(MAGIC_AUTH, flags, epoch, dst, seq, ack, bits) + chunk
            return msg + mac(key, msg)
    return frame


def tag_ok(key: bytes, data: bytes) -> bool:
    """True if the datagram ``data`` (bytes) is at least a header and a tag long and ends with the
    ``TAG_LEN``-byte MAC under ``key`` of everything before it (protocol.md §N2.2): the one check
    of an authenticated datagram or an introduction whose key is tried outside its channel (a kept
    aside channel, a forgotten one's point, an offered key)."""
    return len(data) >= HEADER_SIZE + TAG_LEN and mac_ok(key, data[:-TAG_LEN], data[-TAG_LEN:])
