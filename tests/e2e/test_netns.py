"""End to end on a virtual LAN: one peer process per network namespace, the namespaces joined
by a bridge (tests/e2e/netns.py), peers finding each other by real multicast mDNS on their
veth address (DESIGN.md §5, §6; protocol.md §N3).

Issue text: "A real virtual LAN in the tests ... runs one peer process per namespace ... and
lets them find each other by real multicast mDNS ... The e2e suite plays a full game this way;
where namespaces are not available it says so (pytest skip with the reason) and falls back to
loopback. An independent mDNS client ... must see the game's advertisement in a test."

The independent client is ``mdns-scan`` (Debian package mdns-scan, installed by .ci/run): it
multicasts ``_services._dns-sd._udp.local`` PTR queries and prints the instances it hears.
(``dig @224.0.0.251 -p 5353`` cannot do it: a responder answers a legacy query from its own
unicast address and dig drops the answer as coming from an unexpected source.)
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import netns
from e2e_support import ROOT

AVAILABLE, WHY_NOT = netns.available()
GAME_S = 120


class LoopbackLan:
    """The fallback where namespaces cannot be made: every peer on 127.0.0.1, no prefix."""

    def __init__(self, n: int) -> None:
        self.addresses = ["127.0.0.1"] * n

    def prefix(self, i: int) -> list[str]:
        return []


@pytest.fixture
def lan():
    """Three hosts: namespaces on a bridge when possible, else loopback (see the skip of
    ``test_namespaces_are_available`` for the reason)."""
    if not AVAILABLE:
        yield LoopbackLan(3)
        return
    with netns.VirtualLan(3) as v:
        yield v


def test_namespaces_are_available():
    if not AVAILABLE:
        pytest.skip(f"no virtual LAN, the e2e game ran on loopback instead: {WHY_NOT}")
    with netns.VirtualLan(2) as v:
        names = v.names + [v.hub]
        listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        assert all(n in listed for n in names)
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert not any(n in listed for n in names)  # cleaned up


def test_namespaces_are_cleaned_up_when_the_set_up_fails(monkeypatch):
    if not AVAILABLE:
        pytest.skip(f"no virtual LAN: {WHY_NOT}")
    v = netns.VirtualLan(2)
    v.addresses[1] = "not-an-address"  # `ip addr add` fails half-way through the set-up
    with pytest.raises(subprocess.CalledProcessError):
        with v:
            pass
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert not any(n in listed for n in v.names + [v.hub])


def test_a_whole_game_between_three_hosts_found_by_multicast_mdns(spawn, lan, tmp_path):
    seed = f"lan-{os.getpid()}-{secrets.token_hex(3)}"
    procs = []
    for i, addr in enumerate(lan.addresses):
        role = ["host", "--seats", "3"] if i == 0 else ["join", "--game", gid]
        procs.append(spawn(*role, "--bind", addr, "--progress-json", "--seed", f"{seed}-{i}",
                           "--log-dir", str(tmp_path / f"peer-{i}"), "--config-dir", str(tmp_path / f"k{i}"),
                           "--timeout", str(GAME_S), prefix=lan.prefix(i)))
        if i == 0:
            hosting = procs[0].wait_for(lambda m: m["type"] == "hosting", 60)
            assert hosting["address"] == addr
            gid = hosting["game_id"]
    for p in procs:
        assert p.finish(GAME_S) == 0, p.stderr[-10:]
    dones = [p.of_type("done")[-1] for p in procs]
    assert len({d["final_state_hash"] for d in dones}) == 1
    assert sorted(d["seat"] for d in dones) == [0, 1, 2]
    for d in dones:
        proc = subprocess.run([sys.executable, "-m", "ui.cli", "--lang", "en", "verify", d["log"]], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_an_independent_mdns_client_sees_the_advertised_game(spawn, tmp_path):
    if not AVAILABLE:
        pytest.skip(f"no virtual LAN, so no multicast to listen to: {WHY_NOT}")
    if shutil.which("mdns-scan") is None:
        pytest.skip("mdns-scan is not installed (.ci/run installs it: apt-get install mdns-scan)")
    with netns.VirtualLan(2) as v:
        host = spawn("host", "--bind", v.addresses[0], "--seats", "2", "--progress-json",
                     "--log-dir", str(tmp_path / "h"), "--config-dir", str(tmp_path / "hk"), "--timeout", "60",
                     prefix=v.prefix(0))
        gid = host.wait_for(lambda m: m["type"] == "hosting", 60)["game_id"]
        # mdns-scan never ends by itself; it prints each instance it hears as "+ <name>".
        scan = subprocess.run([*v.prefix(1), "timeout", "4", "mdns-scan"], capture_output=True, text=True,
                              timeout=60)
        host.proc.kill()
    # The instance name is readable (protocol.md §N3): "<host name> — <edition> (<gid8>)".
    heard = re.findall(r"\+ .*\(([0-9a-f]{8})\)\._lanopoli\._udp\.local", scan.stdout + scan.stderr)
    assert gid[:8] in heard, scan.stdout[-500:] + scan.stderr[-500:]
