"""Wire schemas as data: canonical msgpack and field types that compile once to functions.

A message body (protocol.md §C1) is a msgpack array with a fixed schema per type. The schema
is *declared* once, as a table of ``(field name, wire type)`` rows (``p2p/wire.py`` holds one
per message type), and ``Struct.compile`` turns it into two functions, built once at import:

* ``check(obj) -> value``: validate the unpacked object (type, length, range, arity, the
  cross-field rules) and build the decoded value (a NamedTuple, tuples for arrays). Any
  violation raises ``WireError``, so the caller drops and counts the message. It is generated
  Python source with the leaf checks inlined (``Schema.source`` shows it), so a decoder costs
  what a hand-written one did.
* ``to_wire(value) -> obj``: the inverse, a plain nested list that ``pack`` encodes.

``Schema`` joins the two with the codec: ``decode(body)`` = ``check(unpack(body))`` and
``encode(msg)`` = ``pack(to_wire(msg))`` after the same ``check`` on the encoder's side (an
invalid message of ours is our bug, ``LocalProtocolError``, never a datagram every peer would
drop). Decoding then re-encoding gives the very same bytes (canonical msgpack, §C1).

The field types are frozen dataclasses with public attributes, so a test can walk a table and
generate valid and corrupt values of every field (tests/p2p/test_wire_schema.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Callable, NamedTuple

import msgpack

from . import const as C
from .errors import LocalProtocolError, WireError

Check = Callable[[Any], Any]

# --- canonical msgpack (protocol.md §C1) -------------------------------------------------------


def _reject_ext(code: int, data: bytes) -> Any:
    raise WireError(f"ext type {code} not allowed")


_UNPACK_OPTS = dict(
    raw=False,
    strict_map_key=True,
    use_list=True,
    max_str_len=C.MAX_LOBBY_MSG,
    max_bin_len=C.MAX_LOBBY_MSG,
    max_array_len=256,
    max_map_len=0,  # maps are never part of a schema
    max_ext_len=0,
    ext_hook=_reject_ext,
)
#: Same, for catch-up responses and spectators' records (their payloads are large bins).
_UNPACK_BIG = dict(_UNPACK_OPTS, max_str_len=C.MAX_CATCHUP_MSG, max_bin_len=C.MAX_CATCHUP_MSG)


_PACKER = msgpack.Packer(use_bin_type=True)
"""One packer for every encoding: ``msgpack.packb`` builds a new one per call, which is half its
cost on a small body (0.53 -> 0.28 µs, issue 14). ``pack`` resets it after each object, also
when packing raises, and holds the GIL throughout, so sharing it is safe."""


def pack(obj: Any) -> bytes:
    """Canonical msgpack encoding of ``obj`` (arrays, bin, str, int, bool, nil only)."""
    return _PACKER.pack(obj)


def unpack(data: bytes, big: bool = False) -> Any:
    """Strictly decode canonical msgpack: raises ``WireError`` for malformed, trailing,
    ext, map, or non-canonical input. ``big``: allow str/bin up to MAX_CATCHUP_MSG bytes
    (catch-up responses) instead of MAX_LOBBY_MSG."""
    try:
        obj = msgpack.unpackb(data, **(_UNPACK_BIG if big else _UNPACK_OPTS))
    except WireError:
        raise
    except Exception as e:  # msgpack raises ValueError, ExtraData, FormatError, StackError...
        raise WireError(f"undecodable msgpack: {type(e).__name__}") from None
    if _PACKER.pack(obj) != data:
        raise WireError("non-canonical msgpack encoding")
    return obj


# --- field types ----------------------------------------------------------------------------
# Leaf types (UInt, Bin, Str, Bool) say when a value *fails* as a Python condition on a variable
# name, so ``Struct.compile`` can inline them; the containers (Nil, Opt, Array, Custom, Struct)
# are handled by the compiler below. A leaf's decoded value is its wire value.


@dataclass(frozen=True)
class UInt:
    """Integer in ``[lo, hi]`` (msgpack int; a bool is not an int here)."""

    hi: int
    lo: int = 0

    def fails(self, v: str) -> str:
        return f"type({v}) is not int or not {self.lo} <= {v} <= {self.hi}"

    def expected(self) -> str:
        return f"int in [{self.lo}, {self.hi}]"


@dataclass(frozen=True)
class Bin:
    """Byte string (msgpack bin): exactly ``size`` bytes, or else between ``min`` and ``max``
    (None: no bound but the unpacker's) and a multiple of ``multiple`` bytes."""

    size: int | None = None
    min: int = 0
    max: int | None = None
    multiple: int = 1

    def fails(self, v: str) -> str:
        if self.size is not None:
            return f"type({v}) is not bytes or len({v}) != {self.size}"
        out = f"type({v}) is not bytes"
        if self.min:
            out += f" or len({v}) < {self.min}"
        if self.max is not None:
            out += f" or len({v}) > {self.max}"
        if self.multiple > 1:
            out += f" or len({v}) % {self.multiple}"
        return out

    def expected(self) -> str:
        if self.size is not None:
            return f"{self.size} bytes"
        return f"bin of {self.min}..{'' if self.max is None else self.max} bytes" \
            + (f", a multiple of {self.multiple}" if self.multiple > 1 else "")


@dataclass(frozen=True)
class Str:
    """UTF-8 string (msgpack str) of at most ``max`` characters."""

    max: int

    def fails(self, v: str) -> str:
        return f"type({v}) is not str or len({v}) > {self.max}"

    def expected(self) -> str:
        return f"str of at most {self.max} characters"


@dataclass(frozen=True)
class Bool:
    """msgpack true/false."""

    def fails(self, v: str) -> str:
        return f"type({v}) is not bool"

    def expected(self) -> str:
        return "bool"


@dataclass(frozen=True)
class Nil:
    """``inner`` or nil (decoded as None)."""

    inner: Any


@dataclass(frozen=True)
class Opt:
    """A trailing optional field of a ``Struct``: ``inner``, or ``absent`` (its value when the
    field is left out). The body ends after its last present field; a left-out field before a
    present one is sent as nil. So the last field of a body is never nil (nor a left-out
    value): that shorter form exists, and canonical bodies have one form (protocol.md §C1)."""

    inner: Any
    absent: Any = None


@dataclass(frozen=True)
class Array:
    """Array of ``item`` with ``min`` to ``max`` elements (None: the unpacker's 256), decoded
    as a tuple."""

    item: Any
    min: int = 0
    max: int | None = None


@dataclass(frozen=True)
class Custom:
    """A field whose check is a function (the STEP input, the hidden field, setup options):
    ``check(obj) -> value`` raises ``WireError``; ``to_wire(value) -> obj`` (None: identity).
    ``name`` lets a test find its generators."""

    name: str
    check: Check
    to_wire: Check | None = None


@dataclass(frozen=True)
class Rule:
    """A cross-field rule of a ``Struct``: ``ok(value)`` false means the body is refused with
    ``WireError(message)``. Calling it checks a value; the compiler inlines the test instead
    (one call less per decoded body)."""

    ok: Callable[[Any], bool]
    message: str

    def __call__(self, value: Any) -> None:
        if not self.ok(value):
            raise WireError(self.message)


@dataclass(frozen=True)
class Struct:
    """Fixed array of named fields, decoded as ``cls`` (a NamedTuple whose fields include
    these names; None: a plain tuple). Fields typed ``Opt`` must come last and may be left
    out. ``rules``: ``Rule``s, or functions of the decoded value raising ``WireError``
    (cross-field rules, e.g. a voter cannot vote against itself). ``make(*values)`` builds the value when it has
    fields that are not on the wire (derived); default ``cls``."""

    fields: tuple
    cls: Any = None
    rules: tuple = ()
    make: Callable[..., Any] | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """The wire fields' names, in order."""
        return tuple(n for n, _ in self.fields)

    @property
    def required(self) -> int:
        """How many fields every body has (the ones before the ``Opt`` tail)."""
        return sum(1 for _, t in self.fields if not isinstance(t, Opt))

    def compile(self, what: str) -> tuple[Check, Check]:
        """``(check, to_wire)`` closures of this table (see the module docstring)."""
        if any(isinstance(t, Opt) for _, t in self.fields[:self.required]):
            raise TypeError(f"{what}: optional fields must come last")
        compiler = _Compiler()
        check = compiler.struct(self, what)
        check.source = "".join(compiler.sources)  # type: ignore[attr-defined]  # for Schema.source
        return check, _to_wire(self)


# --- compiler -----------------------------------------------------------------------------------
# A table compiles once to the Python source of one check function per struct (like dataclasses'
# generated __init__): the leaf conditions inlined, the field count known, so decoding a body
# costs what a hand-written decoder did (bench/bench_wire.py: ratios new/old).


class _Compiler:
    """Generates the check functions of one schema; ``ns`` holds the constants they use."""

    def __init__(self) -> None:
        self.ns: dict[str, Any] = {"WireError": WireError, "_tuple_new": tuple.__new__}
        self.sources: list[str] = []

    def const(self, value: Any) -> str:
        name = f"_k{len(self.ns)}"
        self.ns[name] = value
        return name

    def raise_(self, what: str, expected: str) -> str:
        return f"raise WireError({self.const(f'{what}: expected {expected}')})"

    def field(self, t: Any, v: str, what: str, ind: str) -> tuple[list[str], str]:
        """Lines checking variable ``v`` of type ``t`` and the expression of its value."""
        if hasattr(t, "fails"):
            return [f"{ind}if {t.fails(v)}: {self.raise_(what, t.expected())}"], v
        if isinstance(t, Nil):
            lines, expr = self.field(t.inner, v, what, ind + "    ")
            if expr != v:
                expr = f"(None if {v} is None else {expr})"
            return [f"{ind}if {v} is not None:"] + lines, expr
        if isinstance(t, Array):
            hi = 2**32 if t.max is None else t.max
            exp = f"array of {t.min}..{'' if t.max is None else t.max}"
            lines = [f"{ind}if type({v}) is not list or not {t.min} <= len({v}) <= {hi}: {self.raise_(what, exp)}"]
            x = v + "_"
            if not isinstance(t.item, (Struct, Custom)):
                item, expr = self.field(t.item, x, what + "[]", ind + "    ")
                if expr == x:  # leaves: checked in a loop, the list itself becomes the tuple
                    return lines + [f"{ind}for {x} in {v}:"] + item, f"tuple({v})"
            return lines, f"tuple(map({self.const(self.check_of(t.item, what + '[]'))}, {v}))"
        if isinstance(t, Custom):
            return [], f"{self.const(t.check)}({v})"
        if isinstance(t, Struct):
            return [], f"{self.const(self.struct(t, what))}({v})"
        raise TypeError(f"{what}: no wire type {t!r}")

    def check_of(self, t: Any, what: str) -> Check:
        """A standalone check function of type ``t`` (array items that are not leaves)."""
        if isinstance(t, Custom):
            return t.check
        if isinstance(t, Struct):
            return self.struct(t, what)
        lines, expr = self.field(t, "v", what, "    ")
        return self.define(["def check(v):"] + lines + [f"    return {expr}"])

    def struct(self, st: Struct, what: str) -> Check:
        types = [t for _, t in st.fields]
        n_max, n_min = len(types), st.required
        fs = [f"f{i}" for i in range(n_max)]
        exp = f"array of {n_min}" + (f"..{n_max}" if n_max > n_min else "")
        src = ["def check(v):"]
        if n_max == n_min:
            src += [f"    if type(v) is not list or len(v) != {n_max}: {self.raise_(what, exp)}",
                    f"    {', '.join(fs)}{',' if n_max == 1 else ''} = v"]
        else:
            src += ["    n = len(v) if type(v) is list else -1",
                    f"    if not {n_min} <= n <= {n_max} or (n > {n_min} and v[-1] is None): "
                    + self.raise_(what, exp + ", the last one not nil")]
            for n in range(n_min, n_max + 1):
                pad = "".join(f"; {f} = None" for f in fs[n:])
                src.append(f"    {'if' if n == n_min else 'elif'} n == {n}: {', '.join(fs[:n])} = v{pad}")
        exprs = []
        for i, ((name, t), f) in enumerate(zip(st.fields, fs)):
            if isinstance(t, Opt):
                lines, expr = self.field(t.inner, f, f"{what}.{name}", "        ")
                src += [f"    if {f} is None:", f"        {f} = {self.const(t.absent)}", "    else:"] + lines \
                    + ([f"        {f} = {expr}"] if expr != f else ["        pass"])
                exprs.append(f)
            else:
                lines, expr = self.field(t, f, f"{what}.{name}", "    ")
                src += lines
                exprs.append(expr)
        make = st.make or st.cls
        if make is None:
            call = f"({', '.join(exprs)},)"
        elif st.make is None and _plain_namedtuple(make, n_max):
            # tuple.__new__ directly: what the NamedTuple's generated __new__ does, minus its
            # Python frame (decoding runs once per message on the hot path, issue 14).
            call = f"_tuple_new({self.const(make)}, ({', '.join(exprs)},))"
        else:
            call = f"{self.const(make)}({', '.join(exprs)})"
        if st.rules:
            src.append(f"    out = {call}")
            for rule in st.rules:
                if isinstance(rule, Rule):
                    src.append(f"    if not {self.const(rule.ok)}(out): raise WireError({self.const(rule.message)})")
                else:
                    src.append(f"    {self.const(rule)}(out)")
            src.append("    return out")
        else:
            src.append(f"    return {call}")
        return self.define(src)

    def define(self, src: list[str]) -> Check:
        text = "\n".join(src) + "\n"
        self.sources.append(text)
        scope: dict[str, Any] = {}
        exec(text, self.ns, scope)  # noqa: S102 - source built above from the table, no input
        return scope["check"]


def _plain_namedtuple(cls: Any, n: int) -> bool:
    """True if ``cls`` is a NamedTuple of ``n`` fields whose ``__new__`` is the generated one
    (so ``tuple.__new__(cls, values)`` builds the same value)."""
    if not (isinstance(cls, type) and issubclass(cls, tuple) and len(getattr(cls, "_fields", ())) == n):
        return False
    code = getattr(cls.__new__, "__code__", None) if "__new__" in cls.__dict__ else None
    return code is not None and code.co_filename.startswith("<") and code.co_name == "<lambda>"


def _wire_of(t: Any) -> Check | None:
    """The to_wire function of a field type (None: the value is its own wire form)."""
    if isinstance(t, Nil):
        inner = _wire_of(t.inner)
        return None if inner is None else (lambda v: None if v is None else inner(v))
    if isinstance(t, Opt):
        inner, absent = _wire_of(t.inner), t.absent
        return lambda v: None if v is None or v == absent else (v if inner is None else inner(v))
    if isinstance(t, Array):
        item = _wire_of(t.item)
        return list if item is None else (lambda v: [item(x) for x in v])
    if isinstance(t, Custom):
        return t.to_wire
    if isinstance(t, Struct):
        return _to_wire(t)
    return None


def _to_wire(st: Struct) -> Check:
    """A struct's value (its NamedTuple, or a tuple) -> the plain list ``pack`` encodes."""
    names, n_min = st.names, st.required
    if st.cls is None:
        get: Callable[[Any], Any] = list
    elif len(names) == 1:
        get = (lambda g: lambda m: [g(m)])(attrgetter(names[0]))
    else:
        get = attrgetter(*names)
    wires = tuple((i, w) for i, w in enumerate(_wire_of(t) for _, t in st.fields) if w is not None)
    tail = len(names) > n_min

    def to_wire(m: Any) -> list:
        vals = list(get(m))
        for i, w in wires:
            vals[i] = w(vals[i])
        while tail and len(vals) > n_min and vals[-1] is None:
            vals.pop()  # left-out optional fields at the end are not sent
        return vals
    return to_wire


class Schema:
    """The body of one message type (or the setup, ``mtype`` None), compiled from its
    ``Struct`` table: ``decode(bytes) -> value``, ``encode(value) -> bytes``. ``big``: the body
    may hold bins up to MAX_CATCHUP_MSG bytes (catch-up responses, spectators' records)."""

    def __init__(self, name: str, mtype: int | None, struct: Struct, big: bool = False) -> None:
        self.name, self.mtype, self.struct, self.big = name, mtype, struct, big
        self.check, self.to_wire = struct.compile(name)
        #: The generated Python source of ``check`` (nested structs first), for reading.
        self.source: str = self.check.source

    def decode(self, body: bytes) -> Any:
        """Decode and validate a body. Raises ``WireError`` (drop and count the message)."""
        return self.check(unpack(body, self.big))

    def encode(self, msg: Any) -> bytes:
        """The canonical body bytes of ``msg``, checked by the same rules as ``decode``.
        Raises ``LocalProtocolError`` if ``msg`` breaks them (every peer would drop it)."""
        obj = self.to_wire(msg)
        try:
            self.check(obj)
        except WireError as e:
            raise LocalProtocolError(f"refusing to encode an invalid {self.name}: {e}") from None
        return pack(obj)

    def __repr__(self) -> str:
        return f"Schema({self.name!r}, {self.mtype})"


# --- the evidence pair (a local file's record, never on the wire) ------------------------------


class EvidencePair(NamedTuple):
    """``CheatDetected.evidence`` when one signed message does not prove the fault alone: the
    culprit's earlier STEP envelope (``b""`` if this peer does not hold it) and the STEP
    envelope of the step that shows the fault. Two sites make it, both through
    ``EVIDENCE_PAIR``: a wrong sealed opening (§C13.3: the commit-step and the open-step STEP
    of the culprit) and a settled hidden-delivery complaint (§C12.4: the sender's STEP of step
    k-1 and the complainer's STEP of step k). It goes to the node's evidence file
    (``session.dump()``, hex), not to any peer."""

    earlier: bytes
    message: bytes


#: msgpack ``[earlier: bin, message: bin]``: the same bytes as the hand-built
#: ``pack([earlier, message])`` it replaces (tests/p2p/test_evidence_pair.py).
EVIDENCE_PAIR = Schema("evidence pair", None, Struct((("earlier", Bin()), ("message", Bin())), EvidencePair))
