"""A virtual LAN for the end-to-end tests: network namespaces joined by a bridge.

Layout (nothing is changed in the test machine's own network namespace: no address, no route,
no interface; eth0 is never touched)::

    hub namespace   lnh<tag>     bridge br0 (multicast snooping off), ports p0..p{n-1}
    host namespace  ln<tag>-<i>  lo up; eth0 = veth to p<i>, 10.77.<net>.<i+1>/24;
                                 route 224.0.0.0/4 dev eth0 (mDNS multicast goes out there)

``VirtualLan(n)`` is a context manager; leaving it (normally or on an exception, including a
failed set-up half-way) deletes every namespace it created, which removes the veths and the
bridge with them. ``available()`` says whether this machine can do it (root and a working
``ip netns``) and why not. ``prefix(i)`` is the argv prefix that runs a command in
namespace i (``ip netns exec NAME``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid

SUBNET = "10.77"  # 10.77.<net>.0/24, private, only ever inside the namespaces


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30)


def available() -> tuple[bool, str]:
    """(True, "") if namespaces can be made here, else (False, the reason)."""
    if os.geteuid() != 0:
        return False, "network namespaces need root (the test runs as an ordinary user)"
    if shutil.which("ip") is None:
        return False, "the ip command (iproute2) is not installed"
    probe = f"lnprobe{uuid.uuid4().hex[:6]}"
    try:
        _ip("netns", "add", probe)
    except (subprocess.CalledProcessError, OSError) as e:
        err = getattr(e, "stderr", "") or str(e)
        return False, f"ip netns does not work here: {err.strip()}"
    try:
        _ip("netns", "del", probe)
    except subprocess.CalledProcessError:
        pass
    return True, ""


class VirtualLan:
    """``n`` namespaces on one bridge; ``addresses[i]`` is namespace i's IPv4 address."""

    def __init__(self, n: int) -> None:
        tag = uuid.uuid4().hex[:6]
        self.hub = f"lnh{tag}"
        self.names = [f"ln{tag}-{i}" for i in range(n)]
        net = int(tag[:2], 16) % 250 + 1  # a different /24 per LAN, should two tests overlap
        self.addresses = [f"{SUBNET}.{net}.{i + 1}" for i in range(n)]
        self._made: list[str] = []

    def prefix(self, i: int) -> list[str]:
        """argv prefix running a command inside namespace ``i``."""
        return ["ip", "netns", "exec", self.names[i]]

    def __enter__(self) -> "VirtualLan":
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def _build(self) -> None:
        _ip("netns", "add", self.hub)
        self._made.append(self.hub)
        _ip("-n", self.hub, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0")
        _ip("-n", self.hub, "link", "set", "br0", "up")
        for i, (ns, addr) in enumerate(zip(self.names, self.addresses)):
            _ip("netns", "add", ns)
            self._made.append(ns)
            _ip("-n", ns, "link", "set", "lo", "up")
            # Both ends are created inside the namespaces: the machine's own namespace never
            # even sees the veth pair.
            _ip("-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", f"p{i}", "netns", self.hub)
            _ip("-n", self.hub, "link", "set", f"p{i}", "master", "br0")
            _ip("-n", self.hub, "link", "set", f"p{i}", "up")
            _ip("-n", ns, "addr", "add", f"{addr}/24", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")
            _ip("-n", ns, "route", "add", "224.0.0.0/4", "dev", "eth0")

    def close(self) -> None:
        """Delete every namespace made so far (the veths and the bridge go with them)."""
        for ns in reversed(self._made):
            try:
                _ip("netns", "del", ns)
            except (subprocess.CalledProcessError, OSError):
                pass
        self._made.clear()

    def __exit__(self, *exc: object) -> None:
        self.close()
