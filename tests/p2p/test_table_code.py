"""The table code (protocol.md §C2.4, ``p2p.table_code``): eight characters every seat of one
game shows, derived from the setup hash and the game seed, to compare out loud.

H156 BREAK #3 (tests/p2p/test_redteam_s14_host.py): a hostile host can seat each honest player
at its own table under one game id, its own keys wearing the other players' names; every
message each player checks is genuine. The two tables then show different codes, and no seat
can choose its table's code: each seat committed to its seed in the setup before any seed was
revealed (§C4), so an honest seat's seed makes the code uniform.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from p2p.table_code import table_code

from p2p_harness import CHAIN, addr, drain

VEC = Path(__file__).resolve().parents[1] / "vectors"
CODE = re.compile(r"^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$")  # Crockford: no I, L, O, U


def _from_the_text(setup_hash: bytes, game_seed: bytes) -> str:
    """§C2.4 as written: the first 5 bytes of SHA-256(b"lanopoli/1/table-code\\x00" + setup hash + game
    seed) as a big-endian int, 8 Crockford base32 characters, most significant first, as XXXX-XXXX."""
    n = int.from_bytes(hashlib.sha256(b"lanopoli/1/table-code\x00" + setup_hash + game_seed).digest()[:5], "big")
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    code = "".join(alphabet[(n >> (5 * (7 - i))) & 31] for i in range(8))
    return code[:4] + "-" + code[4:]


def test_the_published_vectors_follow_the_text():
    """tests/vectors/lan.json 'table_codes' (§C2.4): recomputed from the text."""
    tables = json.loads((VEC / "lan.json").read_text())["table_codes"]
    assert len(tables) == 2
    for t in tables:
        sh, seed = bytes.fromhex(t["setup_hash"]), bytes.fromhex(t["game_seed"])
        assert t["code"] == _from_the_text(sh, seed) == table_code(sh, seed)


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.binary(min_size=32, max_size=32))
def test_every_code_is_eight_base32_characters_and_follows_the_text(setup_hash, game_seed):
    """Property (§C2.4): any 32-byte setup hash and game seed give XXXX-XXXX in Crockford's base32
    (no I, L, O, U to mishear when read aloud), the text's derivation."""
    code = table_code(setup_hash, game_seed)
    assert CODE.match(code) and code == _from_the_text(setup_hash, game_seed)


@pytest.mark.parametrize("sh, seed", [(b"\x00" * 31, b"\x00" * 32), (b"\x00" * 32, b"\x00" * 33), (b"", b"")])
def test_a_wrong_length_is_refused(sh, seed):
    with pytest.raises(ValueError):
        table_code(sh, seed)


def _started(lobby) -> object:
    return next(e for e in drain(lobby) if type(e).__name__ == "GameStarted")


def test_the_host_that_splits_the_table_shows_each_player_another_code():
    """H156 BREAK #3's two tables under one game id (§C2.2, §C11.1): both honest joiners start,
    each with the host's fake named as the other; their table codes differ, so the two players
    reading their codes to each other find out (the protocol alone cannot: every message each
    checks is genuine)."""
    from test_redteam_s14_host import A, B, _split_table
    from p2p.wire import setup_hash

    lobbies = _split_table()
    codes = {}
    for a in (A, B):
        ev = _started(lobbies[a])
        codes[a] = table_code(setup_hash(ev.setup_bytes), ev.game_seed)
    assert lobbies[A].game_id == lobbies[B].game_id
    assert codes[A] != codes[B]


def test_every_seat_of_one_game_shows_the_same_code():
    """An honest lobby of three (host + two joiners, §C2.2): every seat's GameStarted gives the same
    code, and it is the code of the setup hash every seat signed and of the revealed seeds."""
    from p2p.identity import Identity
    from p2p.lobby import STARTED, Lobby
    from p2p.wire import setup_hash

    host = Lobby.host(Identity.from_seed(b"tc-host"), edition="race", seats=3, name="Host", endpoint=addr(0),
                      chain_length=CHAIN)
    lobbies = {addr(0): host}
    for i in (1, 2):
        lobbies[addr(i)] = Lobby.join(Identity.from_seed(b"tc-%d" % i), endpoint=addr(i),
                                      host_addr=addr(0), game_id=host.game_id,
                                      name=f"P{i}", chain_length=CHAIN)
    xk = {a: lob.identity.x25519_public_key for a, lob in lobbies.items()}
    while batch := [(src, dst, raw) for src, lob in lobbies.items() for dst, raw in lob.messages_to_send()]:
        for src, dst, raw in batch:
            lobbies[tuple(dst)].receive_message(raw, src, 0.0, xk[src], True)
    assert all(lob.phase == STARTED for lob in lobbies.values())
    started = [_started(lob) for lob in lobbies.values()]
    codes = {table_code(setup_hash(ev.setup_bytes), ev.game_seed) for ev in started}
    assert len(codes) == 1 and CODE.match(codes.pop())
    assert len({setup_hash(ev.setup_bytes) for ev in started}) == 1


def test_the_found_line_and_the_players_line_carry_the_code(capsys):
    """Part L: the ``found`` progress line has ``table_code``; ``lanopoli host|join`` prints it for
    people in the current language (Italian by default)."""
    from p2p.node_reports import Found
    from ui.i18n import set_language
    from ui.peer import HumanProgress
    from ui.progress import progress_json

    line = progress_json(Found(3, 0.5, "M4GR-G87H"))
    assert line == {"type": "found", "peers": 3, "elapsed_s": 0.5, "table_code": "M4GR-G87H"}
    set_language("it")
    try:
        HumanProgress(3)(line)
    finally:
        set_language("en")
    err = capsys.readouterr().err
    assert "Codice del tavolo: M4GR-G87H — leggetelo ad alta voce" in err


def test_verify_names_the_code_of_the_log_it_checked():
    """``lanopoli verify`` (Part L, verify.json) gives the table code of the published sample log:
    the one recomputed from the text with the log header's setup hash (§C2.3) and game seed (§C4),
    so a log can be matched to the table its players sat at."""
    from p2p.gamelog import LogReader
    from p2p.log_checks import parse_header
    from p2p.verify import verify_log

    header = next(iter(LogReader(VEC / "game.lnplog")))
    _, _, sh, seed = parse_header(header.payload)
    expected = _from_the_text(sh, seed)
    assert verify_log(VEC / "game.lnplog").table_code == expected
    assert json.loads((VEC / "verify.json").read_text())["table_code"] == expected


def test_a_resumed_peer_shows_the_code_again(capsys):
    """Part L: the ``resumed`` progress line has ``table_code`` (a peer restarted from its log,
    §N5) and the line for people repeats the code (RV14-A #3: before, only ``found`` had it)."""
    from p2p.node_reports import Resumed
    from ui.display import resilience_line
    from ui.progress import progress_json

    line = progress_json(Resumed("/tmp/g.log", 407, 0, None, "M4GR-G87H"))
    assert line["table_code"] == "M4GR-G87H"
    assert resilience_line(line).endswith("Table code: M4GR-G87H — read it out loud: whoever sees another code is "
                                          "at another table.")
