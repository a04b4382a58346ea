"""The node hands the session the key of the channel that authenticated a STEP (protocol.md §C8.3
'A seat's own channel (F1)', §N2.2 'What the session builds on it').

F1 counts a step-(k+1) message in a drop-vote certificate only when it came on its seat's own keyed
channel, and that channel reaches the session through one line of ``Node._on_message``: the link's
``via`` while it delivers. RV15-F F-2: with that line passing None every other test stayed green
(F1 off in real games), so this drives ``Node._on_message`` itself with a stub link and session."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from p2p.node import Node
from p2p.wire import SESSION_TAGS


class _Session:
    def __init__(self) -> None:
        self.got: list[tuple[bytes, float, bytes | None]] = []

    def receive_message(self, data: bytes, now: float, via: bytes | None = None) -> None:
        self.got.append((data, now, via))


def _node(via: bytes | None) -> SimpleNamespace:
    pumped: list[bool] = []
    return SimpleNamespace(session=_Session(), seats=SimpleNamespace(left_from=None),
                           link=SimpleNamespace(now=12.5, via=via), _pump_session=lambda: pumped.append(True),
                           pumped=pumped)


@pytest.mark.parametrize("via", [bytes(range(32)), None])
def test_c8_3_the_node_passes_the_authenticating_channel_to_the_session(via):
    """A session message reaches ``LockstepSession.receive_message`` with the link's ``via`` (the
    X25519 key of the keyed channel that checked its MAC; None for a plain channel) and the link's
    time, and the session is pumped after it."""
    payload = min(SESSION_TAGS) + b"\x00" * 8
    node = _node(via)
    Node._on_message(node, ("127.0.0.1", 4000), payload)
    assert node.session.got == [(payload, 12.5, via)]
    assert node.pumped == [True]
