"""A seat's own endpoint, as it signs it in its player entry (protocol.md §C2.1, version 6).

Each player entry of the setup (§C2.3) carries ``endpoint = [host, port]``: the IP address and
UDP port its game socket is bound to, in the JOIN the player signs. Every seat's SETUP_SIG covers
the whole setup, so every seat's endpoint is signed by that seat, and every seat opens its channel
to seat s at the endpoint s signed: a host cannot put its own ports between two joiners
(H156 BREAK #4, ``tests/p2p/test_redteam_s14_relay.py``).

One text form per address, so that two peers compare endpoints byte for byte: ``host`` is an IP
literal in its canonical form — IPv4 dotted quad without leading zeros; IPv6 as RFC 5952 §4
(lower-case hexadecimal groups without leading zeros, the longest run of two or more zero groups
written ``::``, the first of equal runs, a single zero group not compressed) and **hexadecimal
groups only**, never RFC 5952 §5's dotted-quad tail (``::ffff:0:a00:2``, not ``::ffff:0:10.0.0.2``);
for every address accepted here that is ``str(ipaddress.ip_address(host))`` — and neither
unspecified (0.0.0.0, ::), multicast (224.0.0.0/4, ff00::/8), the IPv4 broadcast address,
IPv4-mapped IPv6 (::ffff:0:0/96: use the IPv4 form; Python's own text of it changed in 3.13) nor
scoped (``fe80::1%eth0``: a zone names an interface of one machine only). ``port`` is 1..65535.
Vectors: ``wire.json`` ``endpoint_forms``. Pure functions, no state.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from . import const as C


def endpoint_ok(host: Any, port: Any) -> bool:
    """Whether ``(host, port)`` is a valid signed endpoint (module docstring): ``host`` a str of at
    most ``C.MAX_HOST_LEN`` characters in canonical IP text form, ``port`` an int 1..65535."""
    if type(host) is not str or type(port) is not int or not 1 <= port <= 65535 or len(host) > C.MAX_HOST_LEN:
        return False
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    if str(ip) != host or ip.is_unspecified or ip.is_multicast:
        return False
    if isinstance(ip, ipaddress.IPv4Address):
        return host != "255.255.255.255"
    return ip.ipv4_mapped is None and ip.scope_id is None


def canonical_endpoint(addr: Any) -> tuple[str, int]:
    """``(host, port)`` of a bound socket's address (``sock.getsockname()[:2]``) in the canonical
    form a JOIN signs. Raises ``ValueError`` if it is no valid endpoint (a wildcard bind: bind to
    the address you mean, ``node_config``)."""
    host, port = str(addr[0]), int(addr[1])
    try:
        host = str(ipaddress.ip_address(host))
    except ValueError:
        raise ValueError(f"not an IP address: {host!r}") from None
    if not endpoint_ok(host, port):
        raise ValueError(f"not an endpoint a seat can sign: {host}:{port}")
    return host, port


def same_endpoint(endpoint: Any, addr: Any) -> bool:
    """Whether the signed ``endpoint`` (host, port) is the transport address ``addr`` a datagram
    came from (``(host, port)``, or IPv6's 4-tuple): §C2.2 step 2. The source's host text is
    normalised, and an IPv4-mapped source (``::ffff:a.b.c.d``, what a dual-stack IPv6 socket reports
    for an IPv4 peer) is compared as its IPv4 address, the form the seat signs (RV15-L F2)."""
    try:
        ip = ipaddress.ip_address(addr[0])
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return tuple(endpoint) == (str(ip), int(addr[1]))
    except (ValueError, TypeError, IndexError):
        return False
