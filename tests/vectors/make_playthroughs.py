"""Generate the engine playthroughs (protocol.md §E9 "Engine conformance"): whole seeded bot games
written step by step as data, the conformance suite of a port of ``engine/`` and
``engine/bots/``; plus ``initial_states.json``, the initial state of every edition and seat
count and the state after its step 0. Deterministic: the same code gives byte-identical files. Regenerate after a change to
the rules, the edition data, the bots or the encoding (a protocol version bump, protocol.md §E0):

    /work/venv/bin/python tests/vectors/make_playthroughs.py

and commit ``tests/vectors/playthroughs/`` and ``tests/vectors/initial_states.json`` with the
change. ``tests/engine/test_playthroughs.py`` replays every file against the engine.
protocol.md §E9 ("Engine conformance") says what a compatible engine must match.

Games (``GAMES``): for every edition of ``engine.EDITIONS`` and every seat count from its
``min_players`` to its ``max_players``, ``GAMES_PER_SEATING`` games without options (tags
``g0``, ``g1``, ...); and per edition, at 4 seats, the games of ``option_games`` (tag ``pot``:
free-parking pot and double VIA! salary; tag ``timed`` in editions with a timed game: no
auctions and ``timed_minutes`` 60 with the clocks of ``TIMEUP_FROM``, else tag ``noauctions``:
no auctions).

A game's ``label`` is ``"lanopoli/playthrough/<edition>/<seats>/<tag>"``. Everything random in
it derives from that label:

* **beacon of chance step k** (k = the step number, counting every step from 0, as the
  lockstep layer's step number, protocol.md §C4): ``SHA-256(label (UTF-8) || 0x00 || k (8 bytes
  big-endian))``, given to ``engine.apply_chance``;
* **inspection outcomes** (niente-e-come-sembra, phase ``inspection``, protocol.md §C12.5): the
  §C12.1 status of each item of ``engine.rules.counterfeit.unknown_items(state)`` from the
  shares of every seat, seat i's hash-chain secret being ``SHA-256(label || 0x00 || "seat" ||
  i (1 byte))`` (hidden secret and openings as §C12.1, ``p2p.hidden``); given to
  ``engine.apply_reveal``.

**Inputs of a decision step**: seat i sends ``engine.bots.choose(state, i, "default")``; in
niente-e-come-sembra ``engine.bots._niente.choose(state, i, "default", None)``, the bot with no
private view (exactly what every peer computes for a dropped seat, protocol.md §C12.6: a real
player's bot also sees its own bills' statuses, which no public file could replay). In a timed
game seat i's clock runs out at step ``TIMEUP_FROM + 5 i``: at its first decision step from then
on in which ``TimeUp`` is legal for it, it sends ``TimeUp`` instead (protocol.md §E2 "TimeUp
contract"), once.

File format (``playthroughs/<edition>-<seats>p-<tag>.jsonl.gz``): gzip (mtime 0) of UTF-8 JSON
lines, each a JSON object with sorted keys, no spaces:

1. header: ``{"edition", "seats", "options" (new_game options), "label", "bot": "default",
   "view": null, "timeup_from": step or null, "initial_state_hash": hex, "format": 1}``;
2. one line per step k = 0, 1, ...: ``k``, ``kind``, ``chance``, ``actors`` (``engine.pending``
   of the state before the step), then by kind —
   decision step: ``legal`` (per seat, ``engine.legal_actions`` encoded with
   ``engine.encode_action``) and ``inputs`` (per seat, the encoded action or null);
   chance step: ``beacon`` (hex); inspection step: ``items`` (``unknown_items`` as
   ``[kind, id]``) and ``fakes`` (bools) —
   then ``events`` (``engine.encode_event`` of each event, in order) and ``hash`` (hex
   ``engine.state_hash`` of the state after the step);
3. last line: ``{"end": true, "steps", "winner", "standings": [[seat, net worth], ...]}``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from pathlib import Path
from typing import Any, Iterator, NamedTuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import engine as E  # noqa: E402
import engine.bots  # noqa: E402,F401  (E.bots)
from engine.bots import _niente  # noqa: E402
from engine.rules import counterfeit  # noqa: E402
from p2p import hidden as H  # noqa: E402

FORMAT = 1
"""Version of the file layout above."""
OUT = HERE / "playthroughs"
INITIAL = HERE / "initial_states.json"
GAMES_PER_SEATING = 2
"""Games without options per (edition, seat count)."""
OPTION_SEATS = 4
TIMEUP_FROM = 150
"""Step from which seat 0's clock says the time is up (seat i: + 5 i) in a timed game."""
MAX_STEPS = 20_000
"""A game longer than this is a bot or rules bug: the generator refuses it."""


class Game(NamedTuple):
    """One playthrough: ``options`` as ``engine.new_game``; ``timeup_from`` the first clock
    step of a timed game, else None."""

    edition: str
    seats: int
    tag: str
    options: dict
    timeup_from: int | None

    @property
    def label(self) -> str:
        return f"lanopoli/playthrough/{self.edition}/{self.seats}/{self.tag}"

    @property
    def filename(self) -> str:
        return f"{self.edition}-{self.seats}p-{self.tag}.jsonl.gz"


def option_games(edition: str) -> list[Game]:
    """The games with options of ``edition`` (module docstring)."""
    ed = E.EDITIONS[edition]
    out = [Game(edition, OPTION_SEATS, "pot", {"double_go_salary": True, "free_parking_pot": True}, None)]
    if ed.timed_game:
        out.append(Game(edition, OPTION_SEATS, "timed", {"no_auctions": True, "timed_minutes": 60}, TIMEUP_FROM))
    else:
        out.append(Game(edition, OPTION_SEATS, "noauctions", {"no_auctions": True}, None))
    return out


def all_games() -> list[Game]:
    """Every playthrough, in file order."""
    out = []
    for name, ed in E.EDITIONS.items():
        for n in range(ed.min_players, ed.max_players + 1):
            out += [Game(name, n, f"g{i}", {}, None) for i in range(GAMES_PER_SEATING)]
        out += option_games(name)
    return out


# --- what derives from the label -------------------------------------------------------------

def beacon(label: str, k: int) -> bytes:
    """Beacon of chance step ``k``: SHA-256(label || 0x00 || k (8 B BE))."""
    return hashlib.sha256(label.encode() + b"\x00" + k.to_bytes(8, "big")).digest()


def hidden_secrets(label: str, seats: int) -> list[bytes]:
    """Per seat, the §C12.1 hidden secret of its demo chain secret SHA-256(label || 0x00 ||
    "seat" || seat (1 B))."""
    return [H.hidden_secret(hashlib.sha256(label.encode() + b"\x00seat" + bytes((i,))).digest())
            for i in range(seats)]


def inspection_outcomes(state: Any, secrets: list[bytes]) -> tuple[list, list[bool]]:
    """``(items, fakes)`` of an ``inspection`` step: ``unknown_items`` as ``[kind, id]`` lists
    and, per item, its §C12.1 status from the sum of every seat's share."""
    layout = H.layout_of_state(state)
    items = counterfeit.unknown_items(state)
    fakes = []
    for kind, ident in items:
        t = layout.item_of(kind, ident)
        total = sum(H.share_of(H.opening(hs, t)) for hs in secrets)
        fakes.append(layout.is_fake(kind, ident, total))
    return [[kind, ident] for kind, ident in items], fakes


def bot_input(state: Any, seat: int) -> Any:
    """The default bot's action for ``seat`` (niente: no private view), or None."""
    if state.nx:
        return _niente.choose(state, seat, "default", None)
    return E.bots.choose(state, seat, "default")


def decision_inputs(game: Game, state: Any, k: int, voted: set[int]) -> list:
    """The inputs of decision step ``k``: the bots', except TimeUp from a seat whose clock ran
    out (``voted``: seats that already sent theirs; updated)."""
    inputs = [bot_input(state, i) for i in range(state.n)]
    if game.timeup_from is not None:
        for i in range(state.n):
            if i not in voted and k >= game.timeup_from + 5 * i and \
                    any(type(a) is E.actions.TimeUp for a in E.legal_actions(state, i)):
                inputs[i] = E.actions.TimeUp()
                voted.add(i)
    return inputs


def events_json(events) -> list:
    """Encoded events as plain JSON values (nested tuples become lists)."""
    return json.loads(json.dumps([E.encode_event(e) for e in events]))


# --- playing ---------------------------------------------------------------------------------

def play(game: Game) -> Iterator[dict]:
    """The lines of ``game``'s file, header first (module docstring). Raises RuntimeError if
    the game does not end within MAX_STEPS."""
    s = E.new_game(game.edition, game.seats, game.options)
    yield {"format": FORMAT, "edition": game.edition, "seats": game.seats, "options": game.options,
           "label": game.label, "bot": "default", "view": None, "timeup_from": game.timeup_from,
           "initial_state_hash": E.state_hash(s).hex()}
    secrets = hidden_secrets(game.label, game.seats) if s.nx else []
    voted: set[int] = set()
    k = 0
    while not (p := E.pending(s)).terminal:
        if k >= MAX_STEPS:
            raise RuntimeError(f"{game.label}: no end after {MAX_STEPS} steps")
        rec: dict = {"k": k, "kind": p.kind, "chance": p.chance, "actors": list(p.actors)}
        if p.kind == "inspection":
            rec["items"], rec["fakes"] = inspection_outcomes(s, secrets)
            s, ev = E.apply_reveal(s, rec["fakes"])
        elif p.chance:
            b = beacon(game.label, k)
            rec["beacon"] = b.hex()
            s, ev = E.apply_chance(s, b)
        else:
            rec["legal"] = [[E.encode_action(a) for a in E.legal_actions(s, i)] for i in range(s.n)]
            inputs = decision_inputs(game, s, k, voted)
            rec["inputs"] = [None if a is None else E.encode_action(a) for a in inputs]
            s, ev = E.apply_step(s, inputs)
        rec["events"] = events_json(ev)
        rec["hash"] = E.state_hash(s).hex()
        yield rec
        k += 1
    yield {"end": True, "steps": k, "winner": E.winner(s),
           "standings": [list(r) for r in E.standings(s)]}


def dumps_line(obj: dict) -> str:
    """One line of a playthrough file: compact JSON, sorted keys."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def write(game: Game, path: Path) -> int:
    """Write ``game``'s file; returns the number of steps."""
    lines = list(play(game))
    text = "\n".join(dumps_line(x) for x in lines) + "\n"
    path.write_bytes(gzip.compress(text.encode(), compresslevel=9, mtime=0))
    return lines[-1]["steps"]


def read(path: Path) -> list[dict]:
    """The lines of a playthrough file, parsed."""
    return [json.loads(x) for x in gzip.decompress(path.read_bytes()).decode().splitlines()]


# --- initial states --------------------------------------------------------------------------

def compute_initial_states() -> dict:
    """Per edition and seat count: the encoding of ``new_game(edition, seats)`` (hex) and its
    hash, and ``after_step_0``: the beacon of step 0 of the playthrough ``g0`` of that edition
    and seat count, the encoding of the state after that first_player step and its hash
    (protocol.md §E9, §E4)."""
    out = {}
    for name, ed in E.EDITIONS.items():
        per = {}
        for n in range(ed.min_players, ed.max_players + 1):
            s = E.new_game(name, n)
            b = beacon(Game(name, n, "g0", {}, None).label, 0)
            s1, _ = E.apply_chance(s, b)
            per[str(n)] = {"state": E.encode_state(s).hex(), "hash": E.state_hash(s).hex(),
                           "after_step_0": {"beacon": b.hex(), "state": E.encode_state(s1).hex(),
                                            "hash": E.state_hash(s1).hex()}}
        out[name] = per
    return {"spec": "protocol.md §E9, §E4", "states": out}


def main() -> None:
    OUT.mkdir(exist_ok=True)
    games = all_games()
    keep = {g.filename for g in games}
    for old in OUT.glob("*.jsonl.gz"):
        if old.name not in keep:
            old.unlink()
    total = 0
    for g in games:
        total += write(g, OUT / g.filename)
    INITIAL.write_text(json.dumps(compute_initial_states(), indent=1, sort_keys=True) + "\n")
    size = sum(p.stat().st_size for p in OUT.glob("*.jsonl.gz"))
    print(f"{len(games)} playthroughs, {total} steps, {size} bytes in {OUT}")


if __name__ == "__main__":
    main()
