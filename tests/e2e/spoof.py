"""The hostile laptop's tools: forge UDP datagrams from any source address and port, and watch
the UDP traffic, inside a network namespace that the test creates.

Nothing here touches the machine's own network namespace: ``Netns`` makes a fresh namespace
(``ip netns add``, ``lo`` up) whose only interface is its own loopback, the peers run in it
(``prefix()``: ``ip netns exec NAME``), and ``Spoofer``/``Sniffer`` open their sockets from a
thread that entered the namespace (``setns(2)`` through ctypes; a socket stays in the namespace
it was created in, whichever thread later uses it).

* ``Spoofer.send(src, dst, payload)``: one IPv4/UDP datagram whose IP and UDP headers we build
  ourselves (``socket.SOCK_RAW``, ``IPPROTO_RAW``, which implies ``IP_HDRINCL``), so the source
  address and port are whatever we say: a real peer's, as an attacker on the LAN can do.
* ``Sniffer``: an ``AF_PACKET`` socket on the namespace's ``lo`` that records every UDP datagram
  ``(src, dst, payload)`` delivered there (``captured``), as a laptop on an open Wi-Fi sees them.
* ``transport_datagram``/``pure_ack``: datagrams in the transport's format (protocol.md §N2),
  built from ``p2p.transport``'s own header constants, so they follow the format in the tree.

``available()`` says whether this machine can do it (root, ``ip netns``, raw sockets) and why not.
"""

from __future__ import annotations

import ctypes
import os
import socket
import struct
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from p2p.transport import FLAG_DATA, FLAG_MORE, HEADER, MAGIC

Addr = tuple[str, int]
CLONE_NEWNET = 0x40000000
ETH_P_IP = 0x0800
PACKET_OUTGOING = 4  # linux/if_packet.h: a packet we sent (lo shows each datagram twice)
IPPROTO_UDP = 17

_libc = ctypes.CDLL(None, use_errno=True)


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30)


def in_netns(name: str, fn: Callable[[], Any]) -> Any:
    """Run ``fn()`` in a thread that entered network namespace ``name`` and return its result
    (or raise its exception). Only that short-lived thread changes namespace."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            fd = os.open(f"/var/run/netns/{name}", os.O_RDONLY)
            try:
                if _libc.setns(fd, CLONE_NEWNET) != 0:
                    err = ctypes.get_errno()
                    raise OSError(err, f"setns({name}): {os.strerror(err)}")
                box["value"] = fn()
            finally:
                os.close(fd)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            box["error"] = exc

    t = threading.Thread(target=run, name=f"netns-{name}")
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


class Netns:
    """A fresh network namespace with ``lo`` up, deleted on exit (also after a failed set-up).
    ``name``; ``prefix()`` is the argv prefix that runs a command inside it."""

    def __init__(self, tag: str = "atk") -> None:
        self.name = f"ln{tag}{uuid.uuid4().hex[:6]}"
        self._made = False

    def prefix(self) -> list[str]:
        """argv prefix running a command inside the namespace."""
        return ["ip", "netns", "exec", self.name]

    def __enter__(self) -> "Netns":
        _ip("netns", "add", self.name)
        self._made = True
        try:
            _ip("-n", self.name, "link", "set", "lo", "up")
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        """Delete the namespace (idempotent)."""
        if self._made:
            self._made = False
            try:
                _ip("netns", "del", self.name)
            except (subprocess.CalledProcessError, OSError):
                pass

    def __exit__(self, *exc: object) -> None:
        self.close()


def available() -> tuple[bool, str]:
    """(True, "") if a namespace with a raw socket can be made here, else (False, the reason)."""
    if os.geteuid() != 0:
        return False, "forging source addresses needs root (network namespace + raw socket)"
    try:
        with Netns("probe") as ns:
            in_netns(ns.name, lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW).close())
    except (subprocess.CalledProcessError, OSError, FileNotFoundError) as exc:
        err = getattr(exc, "stderr", "") or str(exc)
        return False, f"no network namespace with a raw socket here: {err.strip()}"
    return True, ""


def _checksum(data: bytes) -> int:
    """RFC 1071 ones' complement sum of 16-bit words."""
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def ipv4_udp(src: Addr, dst: Addr, payload: bytes, ident: int = 0) -> bytes:
    """An IPv4 packet (20-byte header, TTL 64, DF) carrying one UDP datagram from ``src`` to
    ``dst`` with a correct UDP checksum (RFC 768 pseudo-header)."""
    s, d = socket.inet_aton(src[0]), socket.inet_aton(dst[0])
    udp_len = 8 + len(payload)
    pseudo = s + d + struct.pack("!BBH", 0, IPPROTO_UDP, udp_len)
    udp = struct.pack("!HHHH", src[1], dst[1], udp_len, 0) + payload
    csum = _checksum(pseudo + udp) or 0xFFFF
    udp = udp[:6] + struct.pack("!H", csum) + udp[8:]
    total = 20 + udp_len
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, ident & 0xFFFF, 0x4000, 64, IPPROTO_UDP, 0, s, d)
    ip = ip[:10] + struct.pack("!H", _checksum(ip)) + ip[12:]
    return ip + udp


class Spoofer:
    """A raw IPv4 socket inside namespace ``ns_name``; ``send`` forges any source. ``sent``
    counts datagrams sent."""

    def __init__(self, ns_name: str) -> None:
        self._sock = in_netns(ns_name, lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW))
        self._ident = 0
        self.sent = 0

    def send(self, src: Addr, dst: Addr, payload: bytes) -> None:
        """Send one UDP datagram that claims to come from ``src``."""
        self._ident += 1
        self._sock.sendto(ipv4_udp(src, dst, payload, self._ident), (dst[0], 0))
        self.sent += 1

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> "Spoofer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Sniffer:
    """Records every UDP datagram delivered on the namespace's ``lo``: ``captured`` is a list of
    ``(src, dst, payload)``, in arrival order (a background thread appends to it)."""

    def __init__(self, ns_name: str) -> None:
        def make() -> socket.socket:
            s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_IP))
            s.bind(("lo", ETH_P_IP))
            s.settimeout(0.2)
            return s

        self._sock = in_netns(ns_name, make)
        self.captured: list[tuple[Addr, Addr, bytes]] = []
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True, name="sniffer")
        self._thread.start()

    def _run(self) -> None:
        while not self._stop:
            try:
                pkt, info = self._sock.recvfrom(65535)
            except socket.timeout:
                continue
            except OSError:
                return
            if info[2] == PACKET_OUTGOING or len(pkt) < 28 or pkt[9] != IPPROTO_UDP:
                continue
            ihl = (pkt[0] & 0x0F) * 4
            sport, dport, length = struct.unpack_from("!HHH", pkt, ihl)
            src = (socket.inet_ntoa(pkt[12:16]), sport)
            dst = (socket.inet_ntoa(pkt[16:20]), dport)
            self.captured.append((src, dst, bytes(pkt[ihl + 8: ihl + length])))

    def wait_for(self, pred: Callable[[Addr, Addr, bytes], bool], timeout: float) -> tuple[Addr, Addr, bytes]:
        """The first captured datagram with ``pred(src, dst, payload)``; AssertionError after
        ``timeout`` s."""
        deadline = time.monotonic() + timeout
        checked = 0
        while True:
            seen = self.captured[checked:]
            for item in seen:
                if pred(*item):
                    return item
            checked += len(seen)
            if time.monotonic() > deadline:
                raise AssertionError(f"no matching datagram among {len(self.captured)} captured")
            time.sleep(0.01)

    def close(self) -> None:
        self._stop = True
        self._thread.join(timeout=2)
        self._sock.close()

    def __enter__(self) -> "Sniffer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def transport_datagram(src_epoch: int, seq: int, chunk: bytes, *, dst_epoch: int = 0, ack: int = 0,
                       more: bool = False) -> bytes:
    """A DATA datagram of the transport (protocol.md §N2): header + ``chunk``."""
    flags = FLAG_DATA | (FLAG_MORE if more else 0)
    return HEADER.pack(MAGIC, flags, src_epoch, dst_epoch, seq, ack, 0) + chunk


def pure_ack(src_epoch: int, *, dst_epoch: int = 0, ack: int = 0, ack_bits: int = 0) -> bytes:
    """A 22-byte pure ack (protocol.md §N2: no DATA flag, no body)."""
    return HEADER.pack(MAGIC, 0, src_epoch, dst_epoch, 0, ack, ack_bits)


def header_fields(datagram: bytes) -> tuple[int, ...] | None:
    """(magic, flags, src_epoch, dst_epoch, seq, ack, ack_bits) of a transport datagram, or
    None if it is too short to carry the header."""
    if len(datagram) < HEADER.size:
        return None
    return HEADER.unpack_from(datagram)
