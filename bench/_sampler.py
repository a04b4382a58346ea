"""A statistical CPU profiler for the benchmarks (not part of the product).

cProfile's per-call cost inflates small Python functions several times over (a profiled peer
spends ~3x its CPU), so shares read from it are biased towards call-heavy code. This sampler
instead takes ``SIGPROF`` every ``interval`` seconds of *process CPU time* and counts the
Python function on top of the stack (``self``) and every distinct function on the stack
(``cum``): the share of samples is the share of CPU, with a cost of a few µs per sample. Time
spent inside a C function (a libsodium verify, a ``sendto``) is counted for the Python function
that called it.

    s = Sampler(); s.start(); ...; s.stop(); s.dump(path)   # JSON {n, interval, self, cum, edges}
    python bench/_sampler.py FILE.json [FILE.json ...] [--top 25]   # merge and print

Keys are ``path:firstline(function)`` with the path relative to the checkout (so that a base
worktree and the main tree give the same keys).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections import Counter
from pathlib import Path
from types import FrameType

_ROOT = str(Path(__file__).resolve().parent.parent) + "/"


def _key(frame: FrameType) -> str:
    code = frame.f_code
    path = code.co_filename
    if path.startswith(_ROOT):
        path = path[len(_ROOT):]
    elif "/python3." in path:
        path = path[path.index("/python3.") + 1:]
    return f"{path}:{code.co_firstlineno}({code.co_name})"


class Sampler:
    """Counts samples of the running Python stack every ``interval`` s of process CPU time
    (``ITIMER_PROF``: user + system time of this process, so waiting for a core is not
    sampled). Main thread only (signals are delivered there)."""

    def __init__(self, interval: float = 0.0005) -> None:
        self.interval = interval
        self.self_: Counter = Counter()
        self.cum: Counter = Counter()
        self.edges: Counter = Counter()  # "caller -> callee" of the top two frames
        self.samples = 0
        self._on = False

    def _tick(self, _sig: int, frame: FrameType | None) -> None:
        if not self._on or frame is None:
            return
        self.samples += 1
        top = _key(frame)
        self.self_[top] += 1
        if frame.f_back is not None:
            self.edges[f"{_key(frame.f_back)} -> {top}"] += 1
        seen = set()
        while frame is not None:
            k = _key(frame)
            if k not in seen:
                seen.add(k)
                self.cum[k] += 1
            frame = frame.f_back

    def start(self) -> None:
        """Start sampling (installs the SIGPROF handler)."""
        signal.signal(signal.SIGPROF, self._tick)
        self._on = True
        signal.setitimer(signal.ITIMER_PROF, self.interval, self.interval)

    def stop(self) -> None:
        """Stop sampling (idempotent)."""
        self._on = False
        signal.setitimer(signal.ITIMER_PROF, 0, 0)

    def dump(self, path: str | Path) -> None:
        """Write the counts as JSON ``{n, interval, self, cum, edges}`` (``edges``: caller ->
        function on top, for the self counts)."""
        Path(path).write_text(json.dumps({"n": self.samples, "interval": self.interval,
                                          "self": self.self_, "cum": self.cum,
                                          "edges": self.edges}))


def report(files: list[str], top: int = 25) -> str:
    """The merged counts of ``files`` as three tables (self, cumulative, caller -> self):
    shares of all samples."""
    n = 0
    self_: Counter = Counter()
    cum: Counter = Counter()
    edges: Counter = Counter()
    for f in files:
        d = json.loads(Path(f).read_text())
        n += d["n"]
        self_.update(d["self"])
        cum.update(d["cum"])
        edges.update(d.get("edges", {}))
    out = [f"{n} samples from {len(files)} file(s)", "", "self %  function"]
    out += [f"{100 * c / n:6.1f}  {k}" for k, c in self_.most_common(top)]
    out += ["", "cum %   function"]
    out += [f"{100 * c / n:6.1f}  {k}" for k, c in cum.most_common(top)]
    out += ["", "self %  caller -> function"]
    out += [f"{100 * c / n:6.1f}  {k}" for k, c in edges.most_common(top)]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="merge and print sampler files")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--top", type=int, default=25)
    a = ap.parse_args(argv)
    print(report(a.files, a.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
