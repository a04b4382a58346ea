"""Error types of the p2p core, split as in h11: ours (raise) versus theirs (drop and report).

* ``LocalProtocolError``: the caller misused the API (e.g. submitted an input twice). Raised;
  the object is unchanged.
* ``WireError``: bytes from the network are malformed (bad msgpack, wrong schema, too long,
  non-canonical). Raised by ``p2p.wire`` decoders; the state machines catch it, drop the
  message, count it and never crash.
* ``RemoteProtocolError``: a well-formed message that breaks the protocol (wrong game, bad
  signature...). State machines turn it into a ``PeerMisbehaved`` event.
"""

from __future__ import annotations


class P2PError(Exception):
    """Base class of all p2p core errors."""


class LocalProtocolError(P2PError):
    """We misused the API; nothing was changed."""


class RemoteProtocolError(P2PError):
    """A peer broke the protocol with a well-formed message."""


class WireError(RemoteProtocolError):
    """Malformed bytes on the wire: undecodable, wrong schema, out of range or too long."""
