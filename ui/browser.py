"""``lanopoli play --browser``: the same Textual UI in a browser tab, for players who are not at
home in a terminal.

textual-serve (the Textualize library) runs a small web server on **127.0.0.1 only** — never
another address: the page drives a program with the player's keys and game logs, so nobody
else on the LAN may open it — and starts one ``lanopoli play`` process per browser tab (the
page's terminal is xterm.js; keys and screen travel over a websocket). The game itself still
talks to the other peers on the LAN address chosen with ``--interface``/``--bind``, exactly as
in the terminal.

One tab is one player: two tabs on the same ``--config-dir`` would be the same player (same
keys) twice; open one.
"""

from __future__ import annotations

import shlex
import socket
import sys
import webbrowser
from typing import Sequence

#: The only address the page is served on (module docstring).
HOST = "127.0.0.1"


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the kernel's choice); the server binds it a moment
    later."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def play_command(argv: Sequence[str]) -> list[str]:
    """The ``lanopoli play`` command line each tab runs: this interpreter, ``-m ui.cli``, and
    ``argv`` (the ``play`` arguments) without ``--browser`` and ``--port``."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg == "--browser":
            continue
        if arg == "--port":
            skip = True
            continue
        if arg.startswith("--port="):
            continue
        out.append(arg)
    return [sys.executable, "-m", "ui.cli", *out]


def serve(command: Sequence[str], port: int, open_browser: bool = True, title: str = "lanopoli") -> None:
    """Serve ``command`` (a Textual app's command line) at http://127.0.0.1:``port`` until
    Ctrl+C or SIGTERM; with ``open_browser``, open the page in the default browser once the
    server listens (if no browser can be started, the address printed at start-up is the way
    in). Raises OSError when the port cannot be bound."""
    from textual_serve.server import Server

    url = f"http://{HOST}:{port}"

    class _Server(Server):
        async def on_startup(self, app) -> None:  # noqa: ANN001 - aiohttp Application
            await super().on_startup(app)
            if open_browser:
                import asyncio

                await asyncio.get_running_loop().run_in_executor(None, webbrowser.open, url)

    _Server(shlex.join(command), host=HOST, port=port, title=title).serve()


__all__ = ["HOST", "free_port", "play_command", "serve"]
