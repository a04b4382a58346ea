"""The ``p2p.*`` setup options (protocol.md §C8.1 seat loss, §N8 timed games, §C8.10 turn time):
their defaults and their validation, shared by the host that fixes a setup and every seat that
checks it (``lobby``), and by the vectors' generator."""

from __future__ import annotations

from . import const as C
from .errors import LocalProtocolError
from .timed_clock import check_timed_options

__all__ = ["RESILIENCE_DEFAULTS", "check_p2p_options"]

#: Setup options that turn seat loss on with its defaults (protocol.md §C8.1): a silent seat is
#: played by the engine's bot after 30 s. Merge into ``Lobby.host(options=...)``.
RESILIENCE_DEFAULTS = {C.OPT_ON_DROP: C.DEFAULT_ON_DROP, C.OPT_DROP_TIMEOUT: C.DEFAULT_DROP_TIMEOUT}


def check_p2p_options(opts: tuple) -> None:
    """Validate the ``p2p.*`` setup options (protocol.md §C8.1; ``p2p.timed_ms``: protocol.md §N8).
    Raises ``LocalProtocolError``."""
    d = dict(opts)
    for k in d:
        if k.startswith(C.P2P_OPTION_PREFIX) and k not in (C.OPT_ON_DROP, C.OPT_DROP_TIMEOUT, C.OPT_TIMED_MS,
                                                           C.OPT_TURN_TIME):
            raise LocalProtocolError(f"unknown p2p option {k!r}")
    bad = check_timed_options(d)
    if bad is not None:
        raise LocalProtocolError(bad)
    if C.OPT_ON_DROP in d and d[C.OPT_ON_DROP] not in ("bot", "bankrupt"):
        raise LocalProtocolError(f"{C.OPT_ON_DROP} must be 'bot' or 'bankrupt'")
    t = d.get(C.OPT_DROP_TIMEOUT, C.DEFAULT_DROP_TIMEOUT)
    if type(t) is not int or not C.MIN_DROP_TIMEOUT <= t <= C.MAX_DROP_TIMEOUT:
        raise LocalProtocolError(f"{C.OPT_DROP_TIMEOUT} must be an int of seconds in "
                                 f"[{C.MIN_DROP_TIMEOUT}, {C.MAX_DROP_TIMEOUT}]")
    t = d.get(C.OPT_TURN_TIME, C.DEFAULT_TURN_TIME)
    if type(t) is not int or not 0 <= t <= C.MAX_TURN_TIME:
        raise LocalProtocolError(f"{C.OPT_TURN_TIME} must be an int of seconds in [0, {C.MAX_TURN_TIME}] (0: unlimited)")
