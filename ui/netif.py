"""Which network a peer uses: ``--interface NAME`` or ``--bind ADDRESS``, never a silent guess.

``host`` and ``join`` bind their UDP socket and restrict zeroconf to one IPv4 address. The user
names it (an interface such as ``eth0``, resolved to its IPv4 address, or the address itself); if
neither is given, the address of the interface that holds the default route is used and the CLI
says so on stderr. Nothing here sends a packet: the default route is read from the routing
table (``/proc/net/route`` on Linux) and addresses from the kernel (``SIOCGIFADDR``, and the
``ifaddr`` library for the list of every interface's addresses).
"""

from __future__ import annotations

import ipaddress
import socket
import struct
from dataclasses import dataclass
from pathlib import Path

_SIOCGIFADDR = 0x8915  # Linux ioctl: get an interface's IPv4 address
_PROC_ROUTE = Path("/proc/net/route")


class InterfaceError(Exception):
    """The interface or address cannot be used; the message is an English one-liner and
    ``.kind`` ("no_such_interface", "no_ipv4", "bad_address", "no_default_route") lets the
    CLI translate it; ``.subject`` is the interface name or address concerned."""

    def __init__(self, kind: str, subject: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.subject = subject


@dataclass(frozen=True)
class Endpoint:
    """The address a peer binds to and advertises, and how it was chosen.

    ``address``: dotted IPv4 string. ``interface``: the interface name when known, else None.
    ``guessed``: True when neither --interface nor --bind was given (the CLI must say so).
    """

    address: str
    interface: str | None
    guessed: bool


def interface_address(name: str) -> str:
    """The IPv4 address of interface ``name`` (e.g. "eth0" -> "192.168.1.20").

    Raises ``InterfaceError`` ("no_such_interface" if the name is unknown, "no_ipv4" if the
    interface has no IPv4 address). Linux only (``SIOCGIFADDR``); elsewhere, pass --bind.
    """
    known = {n for _, n in socket.if_nameindex()}
    if name not in known:
        raise InterfaceError(
            "no_such_interface", name, f"no network interface named {name!r} (have: {', '.join(sorted(known))})"
        )
    try:
        import fcntl  # POSIX only; imported here so that --bind works everywhere

        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            packed = fcntl.ioctl(s.fileno(), _SIOCGIFADDR, struct.pack("256s", name.encode()[:15]))
    except (OSError, ImportError) as exc:
        raise InterfaceError("no_ipv4", name, f"interface {name!r} has no IPv4 address ({exc})") from exc
    return socket.inet_ntoa(packed[20:24])


def default_route_interface(route_table: str | None = None) -> str:
    """The name of the interface holding the IPv4 default route, from ``/proc/net/route``.

    ``route_table`` is that file's text (for tests); None reads the file. When several default
    routes exist, the lowest metric wins. Raises ``InterfaceError("no_default_route")``.
    """
    if route_table is None:
        try:
            route_table = _PROC_ROUTE.read_text()
        except OSError as exc:
            raise InterfaceError(
                "no_default_route", "", f"cannot read the routing table ({exc}); pass --interface or --bind"
            ) from exc
    best: tuple[int, str] | None = None
    for line in route_table.splitlines()[1:]:
        cols = line.split()
        # Columns: Iface Destination Gateway Flags RefCnt Use Metric Mask ...; 0x1 = RTF_UP.
        if len(cols) < 8 or cols[1] != "00000000" or cols[7] != "00000000":
            continue
        if not int(cols[3], 16) & 0x1:
            continue
        candidate = (int(cols[6]), cols[0])
        if best is None or candidate < best:
            best = candidate
    if best is None:
        raise InterfaceError("no_default_route", "", "no default route; pass --interface or --bind")
    return best[1]


def local_ipv4_addresses() -> frozenset[str]:
    """The IPv4 addresses assigned to this machine's interfaces (dotted strings), read with
    ``ifaddr`` (a zeroconf dependency; it asks the kernel, no packet is sent)."""
    import ifaddr

    return frozenset(ip.ip for adapter in ifaddr.get_adapters() for ip in adapter.ips
                     if isinstance(ip.ip, str))


def check_address(text: str, local: frozenset[str] | None = None) -> str:
    """Validate a --bind value: a literal IPv4 address of this machine, in canonical form.

    ``local``: the machine's IPv4 addresses (default ``local_ipv4_addresses()``; tests pass
    their own). Any loopback address (127.0.0.0/8) counts as local: Linux answers on all of
    it. Raises ``InterfaceError("bad_address")`` for anything else (host names are refused:
    the user must say exactly which network, and a name could resolve to several; an address
    of another machine is refused here, before any socket or zeroconf uses it).
    """
    try:
        addr = ipaddress.ip_address(text)
    except ValueError as exc:
        raise InterfaceError("bad_address", text, f"{text!r} is not an IPv4 address") from exc
    if addr.version != 4:
        raise InterfaceError("bad_address", text, f"{text!r} is not an IPv4 address (IPv6 is not supported yet)")
    if addr.is_multicast or addr.is_unspecified:
        raise InterfaceError("bad_address", text, f"{text!r} cannot be bound by a peer; name one interface's address")
    if not addr.is_loopback:
        have = local_ipv4_addresses() if local is None else local
        if str(addr) not in have:
            raise InterfaceError("bad_address", text,
                                 f"{text!r} is not an address of this machine (have: {', '.join(sorted(have))})")
    return str(addr)


def choose_endpoint(interface: str | None, bind: str | None) -> Endpoint:
    """Resolve the CLI's --interface / --bind into an ``Endpoint``.

    Exactly one of them, or neither (then the default-route interface, ``guessed=True``).
    Raises ``InterfaceError`` when the choice cannot be resolved, ``ValueError`` if both given.
    """
    if interface is not None and bind is not None:
        raise ValueError("give --interface or --bind, not both")
    if bind is not None:
        return Endpoint(check_address(bind), None, guessed=False)
    if interface is not None:
        return Endpoint(interface_address(interface), interface, guessed=False)
    name = default_route_interface()
    return Endpoint(interface_address(name), name, guessed=True)
