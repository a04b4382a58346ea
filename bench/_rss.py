"""The figures of ``bench/bench_rows.py``'s ``rss`` row (issue 14, "peer RSS"): each peer's
memory along a game, from the samples ``bench/_net_child.py`` writes (``rss`` on its progress
lines, ``rss_end`` and ``smaps`` at the end). Not part of the product."""

from __future__ import annotations

import statistics


def rss_figures(game: dict) -> dict:
    """Per peer memory along the game, then the worst peer (max) or the median over peers.

    ``max_mb`` / ``last_mb``: resident set (RSS) at its highest / at the end, MB, over the
    progress samples and the end sample; ``first_mb``: RSS at the first progress line (the
    imports, the lobby and the setup: what a peer costs before playing); ``kb_per_step_median``:
    growth over the second half of the samples (least squares; None with fewer than 4 samples, a
    compiled 4-peer game lasts ~0.5 s). RSS counts every page a peer maps, also the pages it
    shares with the other peers (interpreter, libraries, compiled engine): ``pss_mb`` divides
    those among the processes sharing them and ``private_mb`` is the peer's own heap, what one
    more peer costs the machine (``/proc/self/smaps_rollup`` at the end; None from a checkout
    whose ``_net_child.py`` does not read it)."""
    rows = []
    for c in game["children"]:
        pts = [(s, kb) for s, kb in c["rss"] if s > 0]
        end = c.get("rss_end")
        every = pts + ([tuple(end)] if end else [])
        if not every:
            continue
        slope = None
        if len(pts) >= 4:
            half = pts[len(pts) // 2:]
            xs, ys = [p[0] for p in half], [p[1] for p in half]
            mx = statistics.fmean(xs)
            den = sum((x - mx) ** 2 for x in xs)
            slope = sum((x - mx) * (y - statistics.fmean(ys)) for x, y in zip(xs, ys)) / den if den else 0.0
        smaps = c.get("smaps", {}).get("end", {})
        mb = lambda kb: None if kb is None else round(kb / 1024, 1)  # noqa: E731
        rows.append({"first_mb": mb(every[0][1]), "last_mb": mb(every[-1][1]), "max_mb": mb(max(kb for _, kb in every)),
                     "kb_per_step": slope, "pss_mb": mb(smaps.get("Pss")), "private_mb": mb(smaps.get("Private_Dirty"))})
    if not rows:
        return {"peers": game["peers"], "steps": game["steps"], "error": "no RSS sample"}

    def over(key: str, how) -> float | None:  # noqa: ANN001 - max or statistics.median
        vals = [r[key] for r in rows if r[key] is not None]
        return round(how(vals), 3) if vals else None

    return {"peers": game["peers"], "steps": game["steps"], "max_mb": over("max_mb", max),
            "last_mb": over("last_mb", max), "first_mb_median": over("first_mb", statistics.median),
            "kb_per_step_median": over("kb_per_step", statistics.median),
            "pss_mb_median": over("pss_mb", statistics.median), "private_mb_median": over("private_mb", statistics.median)}
