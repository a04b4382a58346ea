"""The parts that act for the lockstep session keep to their seam (issue 13; p2p/session_port.py).

``referee.Referee``, ``escrow_gate.EscrowGate``, ``abandon.Abandons``, ``turn_skip.SessionSkips``,
``catchup_session.SessionCatchUp``, ``session_votes.SessionVotes``, ``record_ingest.RecordIngest``,
``own_step.OwnStep``, ``reseat_session.SessionReseat``, ``step_advance.StepAdvance``,
``session_timers.SessionTimers``, ``step_gate.StepGate``, ``session_inbox.SessionInbox`` and
``local_seat.LocalSeat`` read the session through ``SessionView`` (``self._s``, bound to a
local ``s``) and change it only through ``Effects`` callables. Checked on the source with ``ast``
(nothing is run): no assignment to an attribute of the session, no read of a private attribute of
it, and every session attribute they read is declared in ``SessionView``. The inbox routes every
session message type but STEP to a part; a log replay and a catch-up page hand their records to the
parts that own them, not to the session (issue 13: the session is the node's front, not a relay).
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from p2p import session_port
from p2p.lockstep import LockstepSession

ROOT = Path(__file__).resolve().parents[2]
PARTS = {"p2p/referee.py": "Referee", "p2p/escrow_gate.py": "EscrowGate", "p2p/abandon.py": "Abandons",
         "p2p/turn_skip.py": "SessionSkips", "p2p/catchup_session.py": "SessionCatchUp",
         "p2p/session_votes.py": "SessionVotes", "p2p/record_ingest.py": "RecordIngest",
         "p2p/own_step.py": "OwnStep", "p2p/reseat_session.py": "SessionReseat",
         "p2p/step_advance.py": "StepAdvance", "p2p/session_timers.py": "SessionTimers",
         "p2p/step_gate.py": "StepGate", "p2p/session_inbox.py": "SessionInbox", "p2p/local_seat.py": "LocalSeat"}
#: The session's position in the game: owned by ``step_gate.StepGate``, read-only on the session.
POSITION = ("step", "final_step", "chance_count", "state", "state_hash", "phase", "halt_reason", "spectator")


def _session_refs(cls: ast.ClassDef) -> list[tuple[ast.Attribute, bool]]:
    """(attribute node, is a store) for every ``s.x`` / ``self._s.x`` in ``cls``, where ``s`` is a
    local bound to ``self._s`` (``s = self._s`` or ``s, fx = self._s, self._fx``)."""
    out = []
    for fn in (n for n in cls.body if isinstance(n, ast.FunctionDef)):
        local = set()
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign):
                targets = node.targets[0].elts if isinstance(node.targets[0], ast.Tuple) else node.targets
                values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                for t, v in zip(targets, values):
                    if isinstance(t, ast.Name) and ast.unparse(v) == "self._s":
                        local.add(t.id)
        for node in ast.walk(fn):
            if not isinstance(node, ast.Attribute):
                continue
            base = node.value
            if (isinstance(base, ast.Name) and base.id in local) or ast.unparse(base) == "self._s":
                out.append((node, isinstance(node.ctx, (ast.Store, ast.Del))))
    return out


def _class(path: str, name: str) -> ast.ClassDef:
    tree = ast.parse((ROOT / path).read_text())
    return next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name)


@pytest.mark.parametrize("path", sorted(PARTS))
def test_a_part_never_writes_a_session_attribute_nor_reads_a_private_one(path: str) -> None:
    refs = _session_refs(_class(path, PARTS[path]))
    assert refs, "the checker found no session reads: it would pass vacuously"
    writes = [f"{path}:{n.lineno} {ast.unparse(n)}" for n, store in refs if store]
    private = [f"{path}:{n.lineno} {ast.unparse(n)}" for n, _ in refs if n.attr.startswith("_")]
    assert writes == [] and private == []


@pytest.mark.parametrize("path", sorted(PARTS))
def test_every_session_attribute_a_part_reads_is_declared_in_the_view(path: str) -> None:
    declared = set(session_port.SessionView.__annotations__) | {
        name for name, _ in inspect.getmembers(session_port.SessionView) if not name.startswith("_")}
    read = {n.attr for n, _ in _session_refs(_class(path, PARTS[path]))}
    assert read - declared == set()


def test_the_session_offers_all_of_the_view_and_the_effects_are_its_methods() -> None:
    view = set(session_port.SessionView.__annotations__) | {
        name for name, _ in inspect.getmembers(session_port.SessionView) if not name.startswith("_")}
    init = inspect.getsource(LockstepSession.__init__)
    # Attributes set in __init__ or declared on the class (properties).
    offered = {name for name in view if f"self.{name} =" in init or f"self.{name}:" in init
               or hasattr(LockstepSession, name)}
    assert view - offered == set()
    # Every effect is handed over by name, as one of the session's own callables.
    assert set(session_port.Effects._fields) <= set(re.findall(r"(\w+)=self\.[\w.]+[,)]", init))


def test_the_position_is_the_gates_and_read_only_on_the_session() -> None:
    """Where the step advances is one place (p2p/step_gate.py): the session shows the position
    through properties without a setter, and no p2p module assigns through ``...gate.x``."""
    for name in POSITION:
        prop = getattr(LockstepSession, name)
        assert isinstance(prop, property) and prop.fset is None, name
    writes = []
    for path in sorted((ROOT / "p2p").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                    and "gate" in ast.unparse(node.value).split("."):
                writes.append(f"p2p/{path.name}:{node.lineno} {ast.unparse(node)}")
    assert writes == []
    gate = _class("p2p/step_gate.py", "StepGate")
    owned = {n.target.attr if isinstance(n, ast.AnnAssign) else n.targets[0].attr
             for n in ast.walk(gate) if isinstance(n, (ast.Assign, ast.AnnAssign))
             and isinstance(n.target if isinstance(n, ast.AnnAssign) else n.targets[0], ast.Attribute)}
    assert set(POSITION) <= owned


def test_the_inbox_routes_every_session_type_but_step_to_a_part() -> None:
    """Every non-STEP session message type (``envelope.SESSION_TYPES``) has one route in the
    table ``SessionInbox`` builds from the session's parts, to a handler of a part it reads
    through ``SessionView`` (the view test above checks those reads)."""
    from p2p import envelope

    init = next(n for n in _class("p2p/session_inbox.py", "SessionInbox").body
                if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    table = next(n.value for n in ast.walk(init) if isinstance(n, ast.AnnAssign)
                 and ast.unparse(n.target) == "self._routes")
    routed = {getattr(envelope, ast.unparse(k)) for k in table.keys}
    assert routed == set(envelope.SESSION_TYPES) - {envelope.MSG_STEP}
    handlers = [ast.unparse(v.elts[1]) for v in table.values]
    assert all(h.startswith("s.") and h.count(".") == 2 for h in handlers), handlers


#: What a log replay and a catch-up page do with a record: the part of the session that owns it.
RECORD_CALLS = {"ingest": {"ingest_step_record", "ingest_skip_record", "check_past_drop", "check_past_skip",
                           "cross_check", "adopt_equivocation"},
                "votes": {"ingest_record", "adopt"}, "referee": {"ingest_record"},
                "own": {"adopt_own", "records_coming"}, "reseat": {"restore"}}


@pytest.mark.parametrize("path", ["p2p/catchup.py", "p2p/resume.py", "p2p/node_restart.py"])
def test_records_go_to_the_part_that_owns_them(path: str) -> None:
    """``catchup``, ``resume`` and ``node_restart`` call the record and replay entry points on the
    session's parts (``sess.ingest.cross_check``...), which the session exposes as public
    attributes; the session has no delegate of those names."""
    calls = [n.func for n in ast.walk(ast.parse((ROOT / path).read_text()))
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)]
    via_part = [f"{ast.unparse(f.value)}.{f.attr}" for f in calls if isinstance(f.value, ast.Attribute)
                and f.attr in RECORD_CALLS.get(f.value.attr, ())]
    assert via_part, "no record call found: the check would pass vacuously"
    # The session's former delegates (up to session 7): none left, and nobody calls them.
    gone = set().union(*RECORD_CALLS.values()) - {"adopt", "restore"} | {
        "ingest_drop_record", "adopt_vote", "restore_reseat_secret"}
    direct = [ast.unparse(f) for f in calls if f.attr in gone and ast.unparse(f.value) in ("sess", "session")]
    assert direct == []
    assert [name for name in gone if hasattr(LockstepSession, name)] == []
