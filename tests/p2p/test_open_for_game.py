"""``envelope.open_for_game``: the first two checks (schema, game) that the CHAT (protocol.md §N9),
WATCH and RECORDS (§N10) receivers share, each counting the reason it returns."""

from p2p import const as C
from p2p.envelope import MSG_CHAT, MSG_WATCH, open_for_game, seal
from p2p.identity import Identity
from p2p.wire import Watch, decode_watch, seal_message

ME = Identity.from_seed(b"open-for-game")
GID = bytes(range(16))


def _watch(game_id: bytes = GID) -> bytes:
    return seal_message(ME, MSG_WATCH, Watch(game_id, ME.public_key, ME.x25519_public_key, "tifoso", 0))


def test_a_message_of_our_game_opens():
    env, body, bad = open_for_game(_watch(), MSG_WATCH, decode_watch, C.MAX_STEP_MSG, GID)
    assert bad is None and env.mtype == MSG_WATCH and env.verify(ME.public_key)
    assert body == Watch(GID, ME.public_key, ME.x25519_public_key, "tifoso", 0)


def test_another_game_is_wrong_game():
    assert open_for_game(_watch(bytes(16)), MSG_WATCH, decode_watch, C.MAX_STEP_MSG, GID) == (None, None, "wrong_game")


def test_undecodable_wrong_type_or_bad_body_is_malformed():
    for data, mtype in ((b"\x93\x01", MSG_WATCH),  # truncated envelope
                        (_watch(), MSG_CHAT),  # a WATCH where a CHAT is expected
                        (seal(ME, MSG_WATCH, [GID, ME.public_key]), MSG_WATCH)):  # body of two fields
        assert open_for_game(data, mtype, decode_watch, C.MAX_STEP_MSG, GID) == (None, None, "malformed")
