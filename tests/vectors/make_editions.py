"""Dump every edition's data as the engine holds it (protocol.md §E5): ``tests/vectors/editions.json``.

A compatible engine needs the board, the cards and the money rules of each edition exactly as
``engine.EDITIONS`` has them after loading (``engine/editions/*.py`` over ``data/*.json``, with
the derived per-square tables): this file spells them out, so that a port can read them
instead of the Python, and ``tests/test_edition_vectors.py`` checks it against the engine.
Deterministic; regenerate after a change to the edition data (a protocol version bump, §E0):

    /work/venv/bin/python tests/vectors/make_editions.py

Format: a JSON object (sorted keys, 1-space indent) ``{"format": 1, "kinds": {kind name: int},
"editions": {edition id: edition}}``; an edition is every field of ``engine.editions.Edition``
except ``tables`` (``squares``: one object per square with every field of ``Square``; ``decks``:
per deck, one object per card with every field of ``Card``; ``decoder``: every field of the
niente ``DecoderRules`` or null; ``money``/``estate``/``cards``/``flow``: the strategy's name,
``"euro"`` or ``"banknotes"``, ``"houses"`` or ``"hotels_only"``, ``"deck"`` or ``"face_up"``,
``"plain"`` or ``"niente"``, protocol.md §E5; tuples as arrays), plus
``tables``: the derived per-square lists ``sell_back`` (half the building cost rounded up), ``fee`` (ceil(mortgage × interest %
/ 100)), ``lift`` (mortgage + fee), ``group_of`` (the squares whose ownership decides the
square's rent: colour set, all stations, all utilities).
"""
from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from engine import EDITIONS  # noqa: E402
from engine import editions as ED  # noqa: E402

OUT = HERE / "editions.json"
TABLES = ("sell_back", "fee", "lift", "group_of")


def _plain(v):
    """Dataclasses as objects of their fields, tuples as lists, recursively; an edition's
    strategy object (``Edition.money``, ``estate``, ``cards``, ``flow``: stateless, code not
    data) as its ``name``."""
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return {f.name: _plain(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return v.name  # a strategy: AttributeError here means a new kind of field to spell out


def edition_data(ed) -> dict:
    """One edition as the JSON object of the module doc."""
    out = {f.name: _plain(getattr(ed, f.name)) for f in dataclasses.fields(ed) if f.name != "tables"}
    out["tables"] = {t: _plain(getattr(ed.tables, t)) for t in TABLES}
    return out


def compute() -> dict:
    """The whole file's content."""
    kinds = {n: getattr(ED, n) for n in dir(ED) if n.startswith("K_") and isinstance(getattr(ED, n), int)}
    return {"format": 1, "kinds": kinds, "editions": {name: edition_data(ed) for name, ed in sorted(EDITIONS.items())}}


def main() -> None:
    OUT.write_text(json.dumps(compute(), sort_keys=True, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(EDITIONS)} editions)")


if __name__ == "__main__":
    main()
