"""tests/vectors/editions.json — every edition's data spelled out for a port (protocol.md §E5) —
matches ``engine.EDITIONS``: regenerating it gives the same bytes, and its numbers agree with
the engine's tables and rules read independently (a check that the dump says what it claims)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import engine
from engine.editions import K_STATION, K_UTILITY

VECTORS = Path(__file__).resolve().parent / "vectors"
sys.path.insert(0, str(VECTORS))

import make_editions  # noqa: E402


def _data() -> dict:
    return json.loads((VECTORS / "editions.json").read_text("utf-8"))


def test_the_file_is_what_the_engine_holds():
    assert _data() == json.loads(json.dumps(make_editions.compute()))


def test_every_edition_is_there_with_its_board_and_decks():
    data = _data()["editions"]
    assert sorted(data) == sorted(engine.EDITIONS)
    for name, ed in engine.EDITIONS.items():
        d = data[name]
        assert len(d["squares"]) == len(ed.squares) == ed.tables.nsq
        assert [sq["index"] for sq in d["squares"]] == list(range(len(ed.squares)))
        assert [len(deck) for deck in d["decks"]] == [len(deck) for deck in ed.decks]
        assert len(d["deck_names"]) == len(d["decks"])
        assert d["start_cash"] == ed.start_cash and d["go_salary"] == ed.go_salary


def test_the_derived_tables_follow_their_rules():
    """protocol.md §E6: lift = mortgage + ceil(mortgage × interest / 100); a building sells back at
    half its cost rounded up; a station's rent depends on all stations, a street's on its set."""
    for d in _data()["editions"].values():
        pct = d["mortgage_interest_pct"]
        for sq, fee, lift, back, grp in zip(d["squares"], d["tables"]["fee"], d["tables"]["lift"],
                                            d["tables"]["sell_back"], d["tables"]["group_of"]):
            assert fee == -(-sq["mortgage"] * pct // 100) and lift == sq["mortgage"] + fee
            assert back == -(-sq["house_cost"] // 2)
            if sq["kind"] in (K_STATION, K_UTILITY):
                assert grp == [s["index"] for s in d["squares"] if s["kind"] == sq["kind"]]
            elif sq["group"] >= 0:
                assert grp == d["groups"][sq["group"]] and sq["index"] in grp


def test_classico_prices_match_the_rulebook():
    """monopoly-classico-hasbro.txt (shared/rulebooks/README.md): Bastioni Gran Sasso
    6/12(set)/30/90/270/400/550, house €50; Viale Vesuvio 8/16/40/100/300/450/600."""
    sq = {s["name"]: s for s in _data()["editions"]["classico"]["squares"]}
    assert sq["Bastioni Gran Sasso"]["rent"] == [6, 12, 30, 90, 270, 400, 550]
    assert sq["Bastioni Gran Sasso"]["house_cost"] == 50
    assert sq["Viale Vesuvio"]["rent"] == [8, 16, 40, 100, 300, 450, 600]
