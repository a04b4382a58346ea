"""Every message type's schema table (p2p/wire.py SCHEMAS, compiled by p2p/schema.py) as a
property: for generated valid bodies of every type, decode(encode(m)) == m and the bytes are the
ones a peer sent; every single-field corruption (wrong type, length, range, a cross-field rule
broken, a field missing or extra) is refused with ``WireError`` (protocol.md §C1: dropped and
counted). The valid values are generated from the tables themselves, so a new row is covered
as soon as it is declared."""
from __future__ import annotations

import msgpack
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from p2p import const as C
from p2p.errors import LocalProtocolError, WireError
from p2p.schema import Array, Bin, Bool, Custom, Nil, Opt, Str, Struct, UInt
from p2p.seat_endpoint import endpoint_ok
from p2p.wire import DOMAINS, ENDPOINT, MSG_STEP, SCHEMAS, SETUP, StepBody, encode_step, encode_step_body, pack

SMALL = 6  # longest generated array (the limits themselves are tested by the corruptions)


def _action() -> st.SearchStrategy:
    leaf = st.one_of(st.integers(-2**31, 2**31), st.text(max_size=4), st.binary(max_size=4), st.booleans(),
                     st.none())
    return st.lists(st.recursive(leaf, lambda x: st.lists(x, max_size=3), max_leaves=12), min_size=1, max_size=4)


def _hidden() -> st.SearchStrategy:
    blob = st.integers(1, 3).map(lambda k: bytes(C.HIDDEN_TAG_LEN + k * C.HIDDEN_OPEN_LEN))
    dels = st.lists(st.tuples(st.integers(0, C.MAX_SEATS - 1), blob), max_size=C.MAX_SEATS - 1,
                    unique_by=lambda d: d[0]).map(lambda ds: [list(d) for d in sorted(ds)])
    ops = st.integers(0, 3).map(lambda k: bytes(k * C.HIDDEN_OPEN_LEN))
    comp = st.none() | st.tuples(st.integers(0, C.MAX_SEATS - 1), st.binary(min_size=32, max_size=32)).map(list)
    return st.tuples(dels, ops, comp).map(list)


def _options() -> st.SearchStrategy:
    value = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=C.MAX_OPTION_STR)
    return st.dictionaries(st.text(max_size=8), value, max_size=4).map(lambda d: [[k, d[k]] for k in sorted(d)])


CUSTOM = {
    "step_input": st.none() | st.binary(min_size=C.HASH_LEN, max_size=C.HASH_LEN) | _action(),
    "hidden": _hidden(),
    "options": _options(),
}
#: Corrupt forms of each custom field (each refused wherever the field stands).
CUSTOM_BAD = {
    "step_input": [bytes(31), "reveal", 1, True, [[[[[[[1]]]]]]], [1] * (C.MAX_ACTION_ITEMS + 1)],
    "hidden": [None, [], [[], b""], [[[1, bytes(C.HIDDEN_TAG_LEN)]], b"", None],
               [[], bytes(C.HIDDEN_OPEN_LEN + 1), None],
               [[], b"", [C.MAX_SEATS, bytes(32)]]],
    "options": [None, "x", [["b", 1], ["a", 1]], [["a", 1], ["a", 2]], [["a", 1.5]], [["a"]]],
}


#: A seat's signed endpoint (§C2.1, version 6): canonical IP text (IPv4 or IPv6) and a port.
ENDPOINTS = st.tuples(st.ip_addresses().map(str).filter(lambda h: endpoint_ok(h, 1)),
                      st.integers(1, 65535)).map(list)


def values(t) -> st.SearchStrategy:
    """Valid wire values (plain msgpack objects) of field type ``t``."""
    if t is ENDPOINT:
        return ENDPOINTS
    if isinstance(t, UInt):
        return st.integers(t.lo, t.hi)
    if isinstance(t, Bin):
        if t.size is not None:
            return st.binary(min_size=t.size, max_size=t.size)
        hi = min(t.max if t.max is not None else 300, 300)
        return st.integers(-(-t.min // t.multiple), hi // t.multiple).map(lambda k: bytes(k * t.multiple))
    if isinstance(t, Str):
        return st.text(max_size=t.max)
    if isinstance(t, Bool):
        return st.booleans()
    if isinstance(t, Nil):
        return st.none() | values(t.inner)
    if isinstance(t, Array):
        return st.lists(values(t.item), min_size=t.min, max_size=min(t.max if t.max is not None else SMALL, SMALL))
    if isinstance(t, Custom):
        return CUSTOM[t.name]
    if isinstance(t, Struct):
        return structs(t)
    raise AssertionError(t)


@st.composite
def structs(draw, s: Struct) -> list:
    """A valid wire list of struct ``s``: its required fields and 0..all of its optional ones."""
    n = draw(st.integers(s.required, len(s.fields)))
    out = [draw(values(t.inner if isinstance(t, Opt) else t)) for _, t in s.fields[:n]]
    for i in range(s.required, n - 1):  # a left-out optional field before a present one is nil
        if draw(st.booleans()):
            out[i] = None
    return out


@st.composite
def setups(draw, gid=None) -> list:
    f = draw(structs(SETUP.struct))
    players = sorted({bytes(p[0]): p for p in f[6]}.values(), key=lambda p: p[0])
    assume(C.MIN_SEATS <= len(players) and len({tuple(p[6]) for p in players}) == len(players))
    f[3], f[6] = len(players), players
    if gid is not None:
        f[1] = gid
    return f


def _fix(name: str, f: list, draw) -> list:
    """Make a generated body obey its table's cross-field rules (wire.py ``rules=``)."""
    if name == "setup":
        return draw(setups())
    if name == "status":
        f[4] = f[4][:f[2]]
        f[3] = min(f[3], f[2])
    elif name == "proposal":
        setup = draw(setups(f[0]))
        f[1] = pack(setup)
    elif name == "escrow":
        f[3] = sorted({e[0]: e for e in f[3] if e[0] != f[1]}.values())
    elif name == "step" and len(f) > 8:
        f[8] = sorted({e[0]: e for e in f[8]}.values())  # acks: ascending dealers (§C3.1)
    elif name in ("drop", "skip"):
        assume(f[1] != f[3])
        if name == "drop" and len(f) > 5 and f[5] is not None and len(f[5]) not in (C.HASH_LEN, C.SHARE_LEN):
            f[5] = (f[5] + bytes(C.SHARE_LEN))[:C.SHARE_LEN if len(f[5]) > 49 else C.HASH_LEN]  # share or key (v5)
    elif name == "catchup_req":
        assume(f[2] != f[3])
        f[2], f[3] = sorted((f[2], f[3]))
    elif name == "complaint":
        assume(f[1] != f[3])
    return f


ALL = [SETUP] + list(SCHEMAS.values())


@st.composite
def bodies(draw, schema) -> list:
    return _fix(schema.name, draw(structs(schema.struct)), draw)


def bad_values(t, v) -> list:
    """Corrupt replacements for a field of type ``t`` whose valid value is ``v``."""
    if isinstance(t, UInt):
        return [t.hi + 1, t.lo - 1, str(v), v == 1, None, [v]]
    if isinstance(t, Bin):
        out = ["x" * len(v), None, [v]]
        if t.size is not None:
            return out + [v + b"\0", v[:-1]]
        if t.max is not None and t.max < 4000:
            out.append(bytes(t.max + 1))
        if t.min:
            out.append(bytes(t.min - 1))
        if t.multiple > 1:
            out.append(v + b"\0")
        return out
    if isinstance(t, Str):
        return ["x" * (t.max + 1), v.encode(), None]
    if isinstance(t, Bool):
        return [int(v), None]
    if isinstance(t, (Nil, Opt)):
        return [b for b in bad_values(t.inner, v if v is not None else _any_value(t.inner)) if b is not None]
    if isinstance(t, Array):
        out = ["x", None]
        if t.max is not None and v:
            out.append((v * (t.max + 1))[:t.max + 1])
        if t.min:
            out.append(v[:t.min - 1])
        if v:
            out += [[b] + v[1:] for b in bad_values(t.item, v[0])]
        return out
    if isinstance(t, Custom):
        return CUSTOM_BAD[t.name]
    if isinstance(t, Struct):
        return [None, v[:-1], v + [None] * (len(t.fields) - len(v) + 1)] + \
            [v[:j] + [b] + v[j + 1:] for j, (_, ft) in enumerate(t.fields[:len(v)]) for b in bad_values(ft, v[j])
             if not (b is None and isinstance(ft, Opt) and j < len(v) - 1)]
    raise AssertionError(t)


def rule_breakers(name: str, f: list) -> list:
    """Bodies that keep every field's own type but break a cross-field rule of the table."""
    def with_(**at):
        g = list(f)
        for i, x in at.items():
            g[int(i[1:])] = x
        return g
    if name == "drop":  # a seat against itself; a share that is neither a share nor a key (§C8.3, v5)
        return [with_(f3=f[1]), with_(f5=bytes(C.HASH_LEN + 1))]
    if name in ("skip", "complaint"):
        return [with_(f3=f[1])]  # a seat against itself
    if name == "catchup_req":
        return [with_(f3=f[2]), with_(f2=f[3], f3=f[2])]  # empty or reversed range
    if name == "escrow":
        entry = [f[1], bytes(32), bytes(C.SHARE_LEN + 16)]
        out = [with_(f3=sorted(f[3] + [entry]))]  # an entry for the dealer
        if f[3]:
            out += [with_(f3=[f[3][0], f[3][0]] + f[3][1:])]  # a recipient twice
        if len(f[3]) > 1:
            out.append(with_(f3=f[3][::-1]))  # not ascending
        return out
    if name == "step":
        return [with_(f8=[f[8][0], f[8][0]] + f[8][1:])] if len(f) > 8 else []  # a dealer acknowledged twice
    if name == "status":
        return [with_(f3=f[2] + 1)] if f[2] < C.MAX_SEATS else []  # more taken than seats
    if name == "setup":
        out = [with_(f3=f[3] - 1)] if f[3] > C.MIN_SEATS else []
        p0 = f[6][0]
        return out + [with_(f6=f[6][::-1]), with_(f6=[f[6][0]] + f[6][:-1]),  # descending, a duplicate
                      with_(f6=f[6][:1] + [p[:6] + [p0[6]] for p in f[6][1:]]),  # two seats at one endpoint (v6)
                      with_(f6=[p0[:6] + [[" " + p0[6][0], p0[6][1]]]] + f[6][1:]),  # not canonical
                      with_(f6=[p0[:6] + [["0.0.0.0", p0[6][1]]]] + f[6][1:])]  # unspecified
    if name == "proposal":
        return [with_(f0=bytes(x ^ 1 for x in f[0]))]  # other game
    return []


def _any_value(t):
    """A valid value of a leaf type, to corrupt a nil field (its bad values need one)."""
    return {UInt: 0, Str: "", Bool: False}.get(type(t), bytes(t.size or t.min) if isinstance(t, Bin) else [])


def test_every_message_type_has_a_table() -> None:
    assert set(SCHEMAS) == set(DOMAINS)
    assert all(s.mtype == t for t, s in SCHEMAS.items())
    assert all(s.source.startswith("def check(v):") for s in ALL)  # readable generated decoders


@pytest.mark.parametrize("schema", ALL, ids=lambda s: s.name)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(data=st.data())
def test_decode_encode_round_trip_and_every_corruption_is_refused(schema, data) -> None:
    f = data.draw(bodies(schema))
    body = pack(f)
    m = schema.decode(body)
    assert schema.encode(m) == body  # canonical: one value, one byte string
    assert schema.decode(schema.encode(m)) == m
    required = schema.struct.required
    for i, (name, t) in enumerate(schema.struct.fields[:len(f)]):
        for bad in bad_values(t, f[i]):
            if bad is None and isinstance(t, Opt) and i < len(f) - 1:
                continue  # a left-out optional field before a present one: valid nil
            g = list(f)
            g[i] = bad
            with pytest.raises(WireError):
                schema.decode(pack(g))
    for g in rule_breakers(schema.name, f):
        with pytest.raises(WireError):
            schema.decode(pack(g))
    with pytest.raises(WireError):
        schema.decode(pack(f + [None]))  # an extra field (or a nil last optional one)
    if required:
        with pytest.raises(WireError):
            schema.decode(pack(f[:required - 1]))  # a required field missing


def test_rules_are_refused_at_both_ends() -> None:
    """A cross-field rule broken: WireError when received, LocalProtocolError when we encode."""
    from p2p.wire import MSG_DROP, DropVote
    drop = SCHEMAS[MSG_DROP]
    with pytest.raises(WireError):
        drop.decode(pack([bytes(16), 2, 7, 2, 0, None]))
    with pytest.raises(LocalProtocolError):
        drop.encode(DropVote(bytes(16), 2, 7, 2, 0, None))


def test_step_encoders_give_the_bytes_a_peer_signs() -> None:
    """encode_step (production) and encode_step_body (the vectors' field list) are the STEP
    table's; the 7th and 8th fields appear only when present, a nil 7th only before an 8th."""
    gid, h = bytes(16), bytes(32)
    six = StepBody(gid, 5, 1, h, h, [1])
    assert encode_step(six) == pack(encode_step_body(gid, 5, 1, h, h, [1])) \
        == msgpack.packb([gid, 5, 1, h, h, [1]], use_bin_type=True)
    hidden = ([], b"", None)
    assert encode_step(six._replace(hidden=hidden)) == pack([gid, 5, 1, h, h, [1], [[], b"", None]])
    assert encode_step(six._replace(reseat=(b"r",))) == pack([gid, 5, 1, h, h, [1], None, [b"r"]])
    assert SCHEMAS[MSG_STEP].decode(pack([gid, 5, 1, h, h, [1], None, [b"r"]])) == six._replace(reseat=(b"r",))


def test_production_builds_no_message_by_hand() -> None:
    """Every message p2p/ sends is built by its table's encoder (seal_message / seal_envelope),
    never a positional list through the unchecked ``seal`` (left for tests that forge) nor an
    envelope packed and signed by hand (issue 13: the schema is written once)."""
    import re
    from pathlib import Path

    by_hand = re.compile(r"(?<![\w.])(?<!def )seal\(|pack\(\[MSG_|\.sign\(C\.DOMAIN_")
    root = Path(__file__).resolve().parents[2] / "p2p"
    found = [f"{p.name}:{i}" for p in sorted(root.glob("*.py")) if p.name not in ("wire.py", "schema.py")
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if by_hand.search(line)]
    assert found == []
