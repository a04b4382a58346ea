"""The engine playthroughs (tests/vectors/playthroughs/, protocol.md §E9 "Engine conformance") and
the initial states (tests/vectors/initial_states.json) still hold, step by step.

Each file is replayed against the engine: at every step the pending kind, chance flag and
actors, every seat's legal actions, the bots' inputs (or the beacon, or the inspection
outcomes), the events and the state hash must equal the file's; the first difference fails
with the file, the step number and the field. A failure means the rules, the edition data,
the bots or the encoding changed: if that was meant, bump the protocol version (protocol.md
§E0) and regenerate with ``python tests/vectors/make_playthroughs.py``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import msgpack
import pytest

VEC = Path(__file__).resolve().parent.parent / "vectors"
sys.path.insert(0, str(VEC))

import engine as E  # noqa: E402
from engine import apply_reveal  # noqa: E402

import make_playthroughs as P  # noqa: E402

GAMES = P.all_games()
MAX_TOTAL_BYTES = 4_000_000


class Mismatch(AssertionError):
    """A playthrough line differs from the engine: ``where`` (file and step), ``field``."""


def same(where: str, field: str, want, got) -> None:
    """Raise Mismatch naming ``where`` and ``field`` unless the file's ``want`` equals the
    engine's ``got`` (lists are compared item by item, so the first differing index is named)."""
    if want == got:
        return
    if isinstance(want, list) and isinstance(got, list):
        for i, (w, g) in enumerate(zip(want, got)):
            same(where, f"{field}[{i}]", w, g)
        raise Mismatch(f"{where}: field {field!r}: the file has {len(want)} entries, the engine "
                       f"{len(got)}: {want[len(got):]!r} / {got[len(want):]!r}")
    raise Mismatch(f"{where}: field {field!r}: the file has {want!r}, the engine gives {got!r}")


def replay(game: P.Game, lines: list[dict]) -> int:
    """Check every line of ``game``'s file against the engine; returns the steps checked.
    Raises Mismatch at the first difference."""
    name = game.filename
    header = dict(next(P.play(game)))  # the header only: computed from the game and new_game
    same(f"{name} header", "header", lines[0], header)
    s = E.new_game(game.edition, game.seats, game.options)
    secrets = P.hidden_secrets(game.label, game.seats) if s.nx else []
    voted: set[int] = set()
    k = 0
    for rec in lines[1:]:
        where = f"{name} step {k}"
        if rec.get("end"):
            break
        same(where, "k", rec.get("k"), k)
        p = E.pending(s)
        same(where, "kind", rec.get("kind"), p.kind)
        same(where, "chance", rec.get("chance"), p.chance)
        same(where, "actors", rec.get("actors"), list(p.actors))
        if p.kind == "inspection":
            items, fakes = P.inspection_outcomes(s, secrets)
            same(where, "items", rec.get("items"), items)
            same(where, "fakes", rec.get("fakes"), fakes)
            s, ev = apply_reveal(s, rec["fakes"])
        elif p.chance:
            same(where, "beacon", rec.get("beacon"), P.beacon(game.label, k).hex())
            same(where, "legal", [[]] * s.n, [E.legal_actions(s, i) for i in range(s.n)])
            s, ev = E.apply_chance(s, bytes.fromhex(rec["beacon"]))
        else:
            legal = [[E.encode_action(a) for a in E.legal_actions(s, i)] for i in range(s.n)]
            same(where, "legal", rec.get("legal"), legal)
            bots = [None if a is None else E.encode_action(a)
                    for a in P.decision_inputs(game, s, k, voted)]
            same(where, "inputs", rec.get("inputs"), bots)
            s, ev = E.apply_step(s, [None if a is None else E.decode_action(a) for a in rec["inputs"]])
        same(where, "events", rec.get("events"), P.events_json(ev))
        same(where, "hash", rec.get("hash"), E.state_hash(s).hex())
        k += 1
    where = f"{name} end"
    same(where, "terminal", True, E.pending(s).terminal)
    same(where, "end", lines[-1], {"end": True, "steps": k, "winner": E.winner(s),
                                   "standings": [list(r) for r in E.standings(s)]})
    return k


def test_the_files_are_the_generators_games():
    """Exactly one file per game of make_playthroughs.all_games (every edition, every seat
    count of it, and the option games), and a few MB in all."""
    names = sorted(p.name for p in P.OUT.glob("*.jsonl.gz"))
    assert names == sorted(g.filename for g in GAMES)
    assert {g.edition for g in GAMES} == set(E.EDITIONS)
    for name, ed in E.EDITIONS.items():
        assert {g.seats for g in GAMES if g.edition == name} == set(range(ed.min_players, ed.max_players + 1))
    assert sum((P.OUT / n).stat().st_size for n in names) < MAX_TOTAL_BYTES


@pytest.mark.parametrize("game", GAMES, ids=[g.filename for g in GAMES])
def test_playthrough_replays_step_by_step(game):
    """Every step of the file equals the engine's (module docstring); the game reaches its end."""
    lines = P.read(P.OUT / game.filename)
    assert replay(game, lines) == lines[-1]["steps"] > 0


def test_timed_playthroughs_end_by_the_clock():
    """The timed games exercise the TimeUp contract (§E2): votes, then the time runs out."""
    for g in GAMES:
        if g.timeup_from is None:
            continue
        events = [e[0] for rec in P.read(P.OUT / g.filename)[1:-1] for e in rec["events"]]
        assert "TimeVoted" in events and "TimeExpired" in events, g.filename


def test_a_difference_names_the_step_and_field():
    """A changed hash, event or legal action is reported at its step, with its field."""
    game = GAMES[0]
    lines = P.read(P.OUT / game.filename)
    cases = [(6, "hash", "00" * 32, "'hash'"), (1, "events", [["Nothing"]], "'events[0][0]'")]
    decision = next(i for i, rec in enumerate(lines[1:-1], 1) if rec.get("legal") and rec["legal"][0])
    cases.append((decision, "legal", [[]] * game.seats, "'legal[0]'"))
    for idx, field, value, named in cases:
        bad = [dict(x) for x in lines]
        bad[idx][field] = value
        with pytest.raises(Mismatch) as err:
            replay(game, bad)
        assert f"step {idx - 1}: field {named}" in str(err.value)


# --- initial states --------------------------------------------------------------------------

def test_initial_states_match_the_engine():
    """initial_states.json is the encoding and hash of new_game(edition, seats) for every
    edition and seat count (§E4), in the generator's canonical dump."""
    text = P.INITIAL.read_text()
    assert json.loads(text) == P.compute_initial_states()
    assert text == json.dumps(json.loads(text), indent=1, sort_keys=True) + "\n"


def test_playthrough_beacons_follow_the_spec_text():
    """§E9: the beacon of chance step k is SHA-256(label || 0x00 || k (8 B BE)), k counting every
    step; recomputed here with hashlib for the g0 game of every edition."""
    for name in E.EDITIONS:
        lines = P.read(P.OUT / P.Game(name, 2, "g0", {}, None).filename)
        label = lines[0]["label"].encode()
        assert lines[0]["label"] == f"lanopoli/playthrough/{name}/2/g0"
        chance = [x for x in lines[1:-1] if "beacon" in x]
        assert chance and all(x["beacon"] == hashlib.sha256(label + b"\x00" + x["k"].to_bytes(8, "big")).hexdigest()
                              for x in chance)


def test_state_after_step_0_is_the_playthroughs():
    """after_step_0 is step 0 of the g0 playthrough (same beacon, same hash), and §E9's
    description holds: phase roll, turn 1, doubles 0, d1 = d2 = 0, the starter is the seat the
    last FirstPlayerRolled event names highest."""
    for name, per in json.loads(P.INITIAL.read_text())["states"].items():
        for n, v in per.items():
            after = v["after_step_0"]
            step0 = P.read(P.OUT / P.Game(name, int(n), "g0", {}, None).filename)[1]
            assert (after["beacon"], after["hash"]) == (step0["beacon"], step0["hash"])
            raw = bytes.fromhex(after["state"])
            assert hashlib.sha256(raw).hexdigest() == after["hash"]
            a = msgpack.unpackb(raw)
            tied, totals = [e for e in step0["events"] if e[0] == "FirstPlayerRolled"][-1][1:]
            starter = tied[totals.index(max(totals))]
            assert a[3:9] == [1, starter, 1, 0, 0, 0]
            assert ["TurnStarted", starter] in step0["events"]


def test_initial_states_follow_the_spec_text():
    """From the text of protocol.md §E4 and §E9 "Engine conformance": the hash is SHA-256 of the
    bytes, the array has 43 elements, phase 0 (first_player), turn 0, d1 = d2 = 0, bank = −n ×
    start cash, decks in card order; niente's nx: 13 arrays, seat i's wallet = stack i (ids 12i..
    12i+11), the empty seats' stacks then the bank's bills in the pile, in id order."""
    for name, per in json.loads(P.INITIAL.read_text())["states"].items():
        for n, v in per.items():
            raw = bytes.fromhex(v["state"])
            assert hashlib.sha256(raw).hexdigest() == v["hash"]
            a = msgpack.unpackb(raw)
            n = int(n)
            assert len(a) == 43 and a[0] == 1 and a[1] == name and a[2] == n
            assert a[3:9] == [0, 0, 0, 0, 0, 0]
            assert a[14] == -sum(a[22]) and len(set(a[22])) == 1
            assert all(d == list(range(len(d))) for d in a[35]) and a[29] == [len(d) for d in a[35]]
            nx = a[42]
            if name != "niente-e-come-sembra":
                assert nx == []
                continue
            den, wallet, pile = nx[0], nx[1], nx[2]
            assert len(nx) == 13 and len(wallet) == n
            assert wallet == [list(range(12 * i, 12 * i + 12)) for i in range(n)]
            assert pile == list(range(12 * n, len(den)))
            assert [sum(den[b] for b in w) for w in wallet] == a[22]
