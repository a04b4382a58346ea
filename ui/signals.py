"""Run the CLI's asyncio work so that SIGTERM, like Ctrl-C, unwinds it cleanly.

``asyncio.run`` already turns Ctrl-C into a cancellation of the main task (its ``finally``
blocks run: children reaped, zeroconf goodbyes sent) followed by ``KeyboardInterrupt``. A plain
SIGTERM would kill the process on the spot and leave the demo's children running, so here it
cancels the main task too.
"""

from __future__ import annotations

import asyncio
import signal
from typing import Awaitable, TypeVar

T = TypeVar("T")


class Terminated(Exception):
    """The work was stopped by SIGTERM (after its cleanup ran); exit with 143."""


def run_until_signalled(work: Awaitable[T]) -> T:
    """``asyncio.run(work)``, but SIGTERM cancels it and raises ``Terminated`` afterwards.

    Ctrl-C still raises ``KeyboardInterrupt`` (after the same cleanup).
    """
    terminated = False

    async def main() -> T:
        nonlocal terminated
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()

        def on_sigterm() -> None:
            nonlocal terminated
            terminated = True
            task.cancel()

        try:
            loop.add_signal_handler(signal.SIGTERM, on_sigterm)
        except (NotImplementedError, RuntimeError):  # not the main thread, or no signals here
            pass
        return await work

    try:
        return asyncio.run(main())
    except asyncio.CancelledError:
        if terminated:
            raise Terminated() from None
        raise
