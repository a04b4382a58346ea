"""protocol.md "Writing a compatible peer" → "Conformance checklist" is complete (issue 15): every
message type of ``p2p/wire.SCHEMAS``, every COMPLAINT kind and every log record kind of
``p2p/gamelog`` has a row, each row's vector files hold an envelope of that type (a complaint
of that kind, a framed record of that kind), and every file, test and section the table names
exists. Also: every §-reference in protocol.md names a section that exists. So the next new
message, complaint or log record cannot land without a vector and a row."""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path
from typing import Any, Iterator

import msgpack

ROOT = Path(__file__).resolve().parent.parent
VEC = ROOT / "tests" / "vectors"
TEXT = (ROOT / "protocol.md").read_text()


def checklist() -> list[dict]:
    """The checklist rows: item, sections (§ names and "Part X"), vector files, test files."""
    sec = TEXT[TEXT.index("### Conformance checklist"):TEXT.index("## Test vectors")]
    rows = []
    for line in sec.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] in ("item", "---"):
            continue
        rows.append({"item": cells[0], "sections": cells[1],
                     "vectors": re.findall(r"`([^`]+)`", cells[2]), "tests": re.findall(r"`([^`]+)`", cells[3])})
    return rows


def headings() -> set[str]:
    return set(re.findall(r"^#+ ([A-Z]\d+(?:\.\d+)*)\. ", TEXT, re.M))


def vector_paths(name: str) -> list[Path]:
    if name.endswith("/"):
        return sorted((VEC / name).glob("*"))
    return [VEC / name]


def _strings(obj: Any) -> Iterator[str]:
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)
    elif isinstance(obj, str) and len(obj) >= 20 and len(obj) % 2 == 0 and re.fullmatch(r"[0-9a-f]+", obj):
        yield obj


def _envelope(raw: bytes) -> tuple | None:
    """(type, body) if ``raw`` is a §C1 envelope [uint, bin, bin(64)], else None."""
    try:
        obj = msgpack.unpackb(raw)
    except Exception:
        return None
    if type(obj) is list and len(obj) == 3 and type(obj[0]) is int and type(obj[1]) is bytes \
            and type(obj[2]) is bytes and len(obj[2]) == 64:
        return obj[0], obj[1]
    return None


def _record_kind(raw: bytes) -> int | None:
    """The kind of ``raw`` if it is exactly one §C6 framed record (length, kind, payload, CRC)."""
    if len(raw) < 9 or int.from_bytes(raw[:4], "big") != len(raw) - 9:
        return None
    return raw[4] if zlib.crc32(raw[4:-4]) == int.from_bytes(raw[-4:], "big") else None


def _log_kinds(data: bytes) -> set[int]:
    kinds, off = set(), len(b"LNPLOG1\n")
    while off + 9 <= len(data):
        n = int.from_bytes(data[off:off + 4], "big")
        kinds.add(data[off + 4])
        off += 9 + n
    return kinds


def contents(name: str) -> tuple[set[int], set[int], set[int]]:
    """(envelope types, complaint kinds, framed record kinds) found in a vector file."""
    types, complaints, kinds = set(), set(), set()
    for path in vector_paths(name):
        if path.suffix == ".lnplog":
            data = path.read_bytes()
            kinds |= _log_kinds(data)
            strings = []
        elif path.suffix == ".json":
            strings = list(_strings(json.loads(path.read_text())))
        else:
            continue
        for s in strings:
            raw = bytes.fromhex(s)
            env = _envelope(raw)
            if env is not None:
                types.add(env[0])
                if env[0] == 24:
                    complaints.add(msgpack.unpackb(env[1])[4])
            k = _record_kind(raw)
            if k is not None:
                kinds.add(k)
    return types, complaints, kinds


def _rows(pattern: str) -> dict[int, dict]:
    out = {}
    for r in checklist():
        m = re.fullmatch(pattern, r["item"])
        if m:
            out[int(m.group(1))] = dict(r, name=m.group(2) if m.lastindex and m.lastindex > 1 else None)
    return out


def test_every_row_names_existing_sections_files_and_tests():
    heads, rows = headings(), checklist()
    assert len(rows) > 50
    for r in rows:
        refs = re.findall(r"§([A-Z]\d+(?:\.\d+)*)", r["sections"])
        parts = re.findall(r"Part ([A-Z])\b", r["sections"])
        assert refs or parts, r["item"]
        assert all(x in heads for x in refs), (r["item"], refs)
        assert all(f"## Part {p} " in TEXT for p in parts), (r["item"], parts)
        assert r["vectors"] and r["tests"], r["item"]
        for v in r["vectors"]:
            assert all(p.exists() for p in vector_paths(v)) and vector_paths(v), (r["item"], v)
        for t in r["tests"]:
            code = (ROOT / t).read_text()
            # the test really reads the file it is named for (one of the row's files)
            assert any(Path(v).name.rstrip("/") in code or v.rstrip("/") in code for v in r["vectors"]), (r["item"], t)


def test_every_message_type_has_a_row_and_an_envelope_in_its_vectors():
    from p2p import wire
    rows = _rows(r"type (\d+) (\w+)")
    assert set(rows) == set(wire.SCHEMAS), "a message type without a checklist row (or a row of no type)"
    for t, r in rows.items():
        assert r["name"].lower() == wire.SCHEMAS[t].name.replace("_", "").lower() or \
            r["name"].lower() == wire.SCHEMAS[t].name.lower(), (t, r["name"])
        assert any(t in contents(v)[0] for v in r["vectors"]), f"no envelope of type {t} in {r['vectors']}"


def test_every_complaint_kind_has_a_row_and_a_complaint_in_its_vectors():
    from p2p import complaints
    kinds = {v for k, v in vars(complaints).items()
             if k in ("EQUIVOCATION", "BAD_STEP", "BAD_ESCROW", "BAD_HIDDEN", "BAD_DROP_SHARE")}
    rows = _rows(r"complaint kind (\d+) .+")
    assert set(rows) == kinds == set(range(1, max(kinds) + 1))
    for k, r in rows.items():
        assert any(k in contents(v)[1] for v in r["vectors"]), f"no COMPLAINT of kind {k} in {r['vectors']}"


def test_the_complaint_schema_allows_exactly_the_listed_kinds():
    from p2p import wire
    from p2p.errors import WireError
    schema = wire.SCHEMAS[wire.MSG_COMPLAINT]
    body = msgpack.unpackb(bytes.fromhex(json.loads((VEC / "wire.json").read_text())["complaints"]["bad_step"]
                                         ["envelope"]))[1]
    fields = msgpack.unpackb(body)
    accepted = set()
    for kind in range(0, 10):
        fields[4] = kind
        try:
            schema.decode(msgpack.packb(fields, use_bin_type=True))
            accepted.add(kind)
        except WireError:
            pass
    assert accepted == set(_rows(r"complaint kind (\d+) .+"))


def test_every_log_kind_has_a_row_and_a_record_in_its_vectors():
    from p2p import gamelog
    kinds = {v for k, v in vars(gamelog).items() if k.startswith("KIND_") and type(v) is int}
    rows = _rows(r"log kind (\d+) .+")
    assert set(rows) == kinds
    for k, r in rows.items():
        assert any(k in contents(v)[2] for v in r["vectors"]), f"no framed record of kind {k} in {r['vectors']}"


def test_every_cross_reference_resolves():
    """Every §X.Y in protocol.md (other than DESIGN.md's own §) names a heading that exists."""
    heads = headings()
    bad = [m.group(2) for m in re.finditer(r"(DESIGN\.md\s)?§([A-Z]\d+(?:\.\d+)*)", TEXT)
           if not m.group(1) and m.group(2) not in heads]
    assert bad == []


def _playthrough_lines() -> Iterator[dict]:
    import gzip

    for path in vector_paths("playthroughs/"):
        with gzip.open(path, "rt") as f:
            for line in f:
                yield json.loads(line)


def test_every_action_code_is_in_the_e2_table_and_encoded_in_some_playthrough():
    """§E2: the table's codes are the engine's (``engine.actions.ACTION_TYPES``; 40–45 written
    as a range), and every code occurs encoded in the conformance suite, as a legal action or
    an input (ProposeTrade is never listed as legal, §E9, so only as an input). The checklist
    row 'every action code' names the files."""
    from engine.actions import ACTION_TYPES
    row = next(r for r in checklist() if r["item"].startswith("every action code"))
    assert row["vectors"] == ["playthroughs/"]
    sec = TEXT[TEXT.index("### E2. Actions on the wire"):TEXT.index("### E3.")]
    codes = set()
    for a, b in re.findall(r"^\| (\d+)(?:–(\d+))? \| [A-Z]", sec, re.M):
        codes |= set(range(int(a), int(b or a) + 1))
    assert codes == set(ACTION_TYPES)
    seen = set()
    for d in _playthrough_lines():
        for actions in (d.get("legal") or []):
            seen.update(x[0] for x in actions)
        seen.update(x[0] for x in (d.get("inputs") or []) if type(x) is list and x)
    assert set(ACTION_TYPES) <= seen, set(ACTION_TYPES) - seen


def test_every_pending_phase_is_played_in_some_playthrough():
    """§E4.1, §E9: every phase a step can be pending in (all but the transient AUTO phases and
    game_over) is the ``kind`` of some step of the conformance suite, so a port meets each one,
    the auction tie (phase 18) included, before it meets a real peer. The checklist row
    'every pending phase' names the files."""
    import gzip

    from engine import state as S
    row = next(r for r in checklist() if r["item"].startswith("every pending phase"))
    assert row["vectors"] == ["playthroughs/"]
    seen = set()
    for path in vector_paths("playthroughs/"):
        with gzip.open(path, "rt") as f:
            for line in f:
                seen.update(re.findall(r'"kind":"(\w+)"', line))
    auto = {S.PHASE_NAMES[p] for p in S.AUTO_PHASES} | {"game_over"}
    assert set(S.PHASE_NAMES) - auto <= seen, set(S.PHASE_NAMES) - auto - seen


def test_every_hash_domain_of_the_code_is_written_out_and_recomputed_from_the_text():
    """Every domain-separation label the reference code hashes, keys or derives with
    (``b"lanopoli/1/<label>\\x00"``, ``SIG_PREFIX + b"<label>\\x00"``, the demo secrets'
    purposes) is written in protocol.md as ``lanopoli/1/<label>``, and some vector test
    recomputes it from the text with that literal (not through the production code). The
    signature domains of the message types are §C1's table (tests/test_wire_vectors.py)."""
    labels = set()
    for path in [*(ROOT / "p2p").glob("*.py"), *(ROOT / "engine").rglob("*.py")]:
        src = path.read_text()
        labels |= set(re.findall(r'SIG_PREFIX \+ b"([a-z0-9-]+)\\x00"', src))
        labels |= set(re.findall(r'b"lanopoli/1/([a-z0-9-]+)\\x00"', src))
        labels |= set(re.findall(r'(?:new_secret|derive_secret)\([^,()]+, b"([a-z-]+)"', src))
    assert {"setup", "digest", "escrow-key", "hidden-key", "sealed", "dropped"} <= labels  # the scan works
    tests = "".join(p.read_text() for p in (ROOT / "tests").glob("test_*vectors*.py"))
    missing_text = sorted(x for x in labels if f"lanopoli/1/{x}" not in TEXT)
    missing_test = sorted(x for x in labels if f"lanopoli/1/{x}" not in tests)
    assert missing_text == [] and missing_test == []


def test_every_vector_file_is_in_the_test_vectors_table_and_the_checklist():
    """Every data file under tests/vectors/ (JSON, the sample log, the playthroughs folder) has
    a row in protocol.md's "Test vectors" table and is named by some checklist row."""
    table = TEXT[TEXT.index("## Test vectors"):]
    files = {p.name for p in VEC.iterdir() if p.suffix in (".json", ".lnplog")} | {"playthroughs/"}
    named = {v for r in checklist() for v in r["vectors"]}
    listed = set(re.findall(r"^\| `([^`]+)` \|", table, re.M))
    assert files - {x.replace("*.jsonl.gz", "") for x in listed} == set()
    assert files - named == set()


def test_constants_written_in_the_text_are_the_codes():
    """Every "`NAME` = number" of protocol.md (and every one-name row of §C5's timer table)
    whose NAME is a numeric constant of a p2p module has that module's value (KiB, MiB, ms
    converted), so a port that takes its numbers from the text gets the reference's."""
    import importlib
    import pkgutil

    import p2p
    mods = [importlib.import_module(f"p2p.{m.name}") for m in pkgutil.iter_modules(p2p.__path__)]

    def value(name: str) -> float | None:
        vals = {getattr(m, name) for m in mods if type(getattr(m, name, None)) in (int, float)}
        assert len(vals) <= 1, name
        return vals.pop() if vals else None

    found = []
    c5 = TEXT[TEXT.index("### C5. Timers"):TEXT.index("### C6. Log file")]
    pairs = [(n, v, u) for n, v, u in re.findall(r"`([A-Z][A-Z0-9_]{2,})`\s*=\s*([0-9][0-9,]*(?:\.[0-9]+)?)(?![0-9.,])\s*"
                                                 r"(KiB|MiB|ms|s\b)?(?!\s*[−\-+×*/])", TEXT)]
    pairs += [(n, v, u) for n, v, u in re.findall(r"^\| `([A-Z][A-Z0-9_]+)` \| ([0-9.]+) (s)?", c5, re.M)]
    for name, text, unit in pairs:
        want = value(name)
        if want is None:
            continue
        got = float(text.replace(",", "")) * {"KiB": 1024, "MiB": 1 << 20}.get(unit, 1)
        if unit == "ms" and abs(got - want) > 1e-9:
            got /= 1000
        assert abs(got - want) < 1e-9, (name, text, unit, want)
        found.append(name)
    assert len(set(found)) >= 30  # the scan works
