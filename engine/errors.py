"""The engine's error type (h11 style: raise, change nothing)."""
from __future__ import annotations

__all__ = ["IllegalAction"]


class IllegalAction(Exception):
    """An action that is not legal in this state. Raised by ``apply_action``; ``apply_step``
    turns it into an ``ActionRefused`` event. The state is unchanged.

    ``reason``: English explanation; ``code``: stable machine code, e.g. "not_your_turn".
    """

    def __init__(self, reason: str, code: str) -> None:
        super().__init__(f"{code}: {reason}")
        self.code = code
        self.reason = reason
