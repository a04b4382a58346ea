"""``lanopoli play --browser`` (ui/browser.py): the page is served on 127.0.0.1, a headless
Chromium opens it, presses the page's Start button, and takes a screenshot once the game screen
is drawn — Debian's chromium, driven through its DevTools protocol (aiohttp's websocket client,
already a textual-serve dependency). Skips, saying why, where /usr/bin/chromium is absent
(.ci/run installs it). The screenshot is kept in the test's tmp dir (``browser.png``)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from ui import browser

CHROMIUM = Path("/usr/bin/chromium")
HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

#: The flags Chromium needs on these machines (no sandbox as root, no GPU, no background
#: connections to Google's hosts, which the closed network refuses).
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1280,800", "--remote-debugging-port=0", "--remote-allow-origins=*"]


def test_play_command_drops_the_browser_flags():
    assert browser.play_command(["--lang", "en", "play", "--browser", "--port", "9000", "--bind", "127.0.0.1"]) == \
        [sys.executable, "-m", "ui.cli", "--lang", "en", "play", "--bind", "127.0.0.1"]
    assert browser.play_command(["play", "--port=9000", "--browser"]) == [sys.executable, "-m", "ui.cli", "play"]


def test_the_page_is_served_on_loopback_only():
    assert browser.HOST == "127.0.0.1"


def png_colours(data: bytes) -> int:
    """Distinct pixel colours of an 8-bit RGB/RGBA non-interlaced PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride = zlib.decompress(idat), width * bpp
    prev, colours, i = bytearray(stride), set(), 0
    for _row in range(height):
        ftype, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 255
            elif ftype == 2:
                line[x] = (line[x] + b) & 255
            elif ftype == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        colours.update(bytes(line[x:x + 3]) for x in range(0, stride, bpp))
        prev = line
    return len(colours)


async def _cdp_screenshot(ws_url: str, url: str, marker: Path, out: Path) -> None:
    import aiohttp

    async with aiohttp.ClientSession() as http, http.ws_connect(ws_url, max_msg_size=0) as ws:
        ids = iter(range(1, 10_000))

        async def call(method: str, **params):
            n = next(ids)
            await ws.send_str(json.dumps({"id": n, "method": method, "params": params}))
            while True:
                msg = json.loads((await ws.receive()).data)
                if msg.get("id") == n:
                    assert "error" not in msg, msg
                    return msg.get("result", {})

        await call("Page.navigate", url=url)
        for _ in range(200):  # the page's Start button starts the app (one process per tab)
            found = await call("Runtime.evaluate", expression="!!document.getElementById('start')")
            if found["result"]["value"]:
                break
            await asyncio.sleep(0.1)
        await call("Runtime.evaluate", expression="document.getElementById('start').click()")
        for _ in range(600):
            if marker.exists():
                break
            await asyncio.sleep(0.1)
        assert marker.exists(), "the game screen never showed in the page"
        await asyncio.sleep(1.0)  # the last frame reaches xterm.js
        shot = await call("Page.captureScreenshot", format="png")
        out.write_bytes(base64.b64decode(shot["data"]))


@pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (Debian package chromium; "
                                                    ".ci/run installs it)")
def test_headless_chromium_shows_the_game_screen(tmp_path):
    port = browser.free_port()
    marker = tmp_path / "game-screen"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    server = subprocess.Popen(
        [sys.executable, "-c", "import sys; from ui.browser import serve; "
                               "serve(sys.argv[2:], int(sys.argv[1]), open_browser=False)",
         str(port), sys.executable, str(HERE / "browser_game.py"), str(marker)],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    profile = tmp_path / "chromium-profile"
    chromium = subprocess.Popen([str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        active = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (active.exists() and active.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.1)
        devtools_port = int(active.read_text().split()[0])
        import urllib.request

        for _ in range(100):  # the server listens a moment after it starts
            try:
                urllib.request.urlopen(f"http://{browser.HOST}:{port}/", timeout=2).close()
                break
            except OSError:
                time.sleep(0.1)
        with urllib.request.urlopen(f"http://127.0.0.1:{devtools_port}/json/list", timeout=10) as r:
            page = next(t for t in json.load(r) if t["type"] == "page")
        shot = tmp_path / "browser.png"
        asyncio.run(_cdp_screenshot(page["webSocketDebuggerUrl"], f"http://{browser.HOST}:{port}/", marker, shot))
        # The board's colour groups, the tokens and the text: many colours, not a blank page.
        assert png_colours(shot.read_bytes()) >= 16
    finally:
        for proc in (chromium, server):
            proc.terminate()
        for proc in (chromium, server):
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
