"""The engine's error type (h11 style: raise, change nothing)."""
from __future__ import annotations

__all__ = ["IllegalAction", "refuse"]


class IllegalAction(Exception):
    """An action that is not legal in this state. Raised by ``apply_action``; ``apply_step``
    turns it into an ``ActionRefused`` event. The state is unchanged.

    ``reason``: English explanation; ``code``: stable machine code, e.g. "not_your_turn".
    """

    def __init__(self, reason: str, code: str) -> None:
        super().__init__(f"{code}: {reason}")
        self.code = code
        self.reason = reason


def refuse(err: "tuple[str, str] | None") -> None:
    """Raise ``IllegalAction(reason, code)`` for ``err`` = ``(code, reason)``, the answer of the
    rules' ``*_error`` checks (engine.rules.estate, building, mortgage, sale, ...); None (the
    action is legal) does nothing. One place for what every ``check_*`` did by hand."""
    if err:
        raise IllegalAction(err[1], err[0])
