"""Red team session 11 (H107): names that carry line breaks (protocol.md §N9 "What holds":
'nobody can speak as someone else'; §N10; §C2.1 JOIN ``name``).

A name is a msgpack str of at most 32 characters (``wire.NAME``); nothing refuses or cleans
control characters in a WATCH's or a JOIN's name, while chat *text* is cleaned (``clean_text``)
and an advert's host name is (``ad_record.printable``). The screens print a chat line as
``ui.narrate.chat_line`` makes it, wrapped by ``rich.text.Text.wrap`` (ui/widgets/board.py;
the lobby joins lines with newlines): a newline in a name starts a new line on screen.
"""

from __future__ import annotations

from types import SimpleNamespace

from p2p.chat import ChatRelay
from p2p.faults import FaultPlan, SimNetwork
from p2p.identity import Identity
from p2p.lobby import Lobby
from p2p.spectate import WatchServer
from p2p.wire import MSG_CHAT, MSG_WATCH, Chat, Watch, seal_message
from ui.narrate import chat_line

from redteam_lan_kit import GID, HOST_ID
from test_lobby_loss import HOST, LobbyPeer

FAKE = "\n» Anna: I resign. Bye!\n» x"  # 29 characters: a whole line in Anna's name, then the real one


def _screen_lines(line) -> list[str]:
    """What a player's screen shows for one chat line (``chat_line``, split as Text.wrap splits)."""
    return chat_line(line).split("\n")


def test_a_spectators_name_cannot_put_a_line_in_a_players_mouth():
    """HOLDS since H112 (was BREAK, MED: speaking as someone else, on screen; fixed:
    ``ChatRoom.set_members`` shows every member's name as ``chat.clean_name`` makes it,
    protocol.md §C2.1 'Names'). A spectator (anyone on the LAN)
    subscribes with WATCH ``name`` = '\\n» Anna: I resign. Bye!\\n» x' (29 characters; §N10 checks
    the schema only) and says 'hi'. The seat it follows makes it a member with that name
    (``ChatRelay.current``: ``watch.spectators()``), so ``ChatRoom.receive`` takes the member's
    name as it is (only a non-member's CHAT name goes through ``clean_text``) and the seat's
    player sees three lines: '» ', '» Anna: I resign. Bye!' (no spectator mark: it reads as
    player Anna's line) and '» x (spectator): hi'. Cost: one WATCH and one CHAT. The other seats
    get the line relayed (a non-member there: name cleaned), so only the followed seat is
    fooled, but the spectator picks the seat. Suggested fix: clean names where they enter
    (WATCH, JOIN, CHAT: ``ad_record.printable``/``clean_text``, or refuse a name with control
    characters in the schema, §C1)."""
    players = [HOST_ID, Identity.from_seed(b"h107-anna")]
    setup = SimpleNamespace(game_id=GID, players=[SimpleNamespace(public_key=p.public_key, name=n)
                                                  for p, n in zip(players, ("Host", "Anna"))])
    ws = WatchServer(HOST_ID, GID)
    watch = SimpleNamespace(spectators=lambda: {s.pk: s.name for s in ws.subs.values()},
                            subscriber=lambda addr: ws.subs.get(addr), send_all=lambda raw, exclude=None: None)
    game = SimpleNamespace(lobby=None, session=SimpleNamespace(setup=setup), peers=[("10.0.0.2", 1)], watch=watch)
    shown: list = []
    relay = ChatRelay(HOST_ID, "Host", True, game, lambda *a: None, shown.append)
    spec, at = Identity.from_seed(b"h107-prof"), ("10.0.0.66", 6000)
    ws.receive(seal_message(spec, MSG_WATCH, Watch(GID, spec.public_key, spec.x25519_public_key, FAKE, 0)), at,
               spec.x25519_public_key, 0.0)
    ws.outgoing([], 0.0)  # no transport to ask: its address counts as proved (reached, §N9)
    relay.receive_spectator(at, seal_message(spec, MSG_CHAT, Chat(GID, spec.public_key, 1, "prof", "hi")), 0.0)
    assert len(shown) == 1
    assert len(_screen_lines(shown[0])) == 1, f"one chat line shows as {_screen_lines(shown[0])}"


def test_a_joiners_name_with_line_breaks_is_not_seated_as_it_is():
    """HOLDS since H112 (was BREAK, MED, an insider: a player; fixed: ``Lobby`` cleans our own
    name, the host drops a JOIN whose name is not clean, a joiner refuses such a setup,
    protocol.md §C2.1 'Names'; tests/p2p/test_names.py). A joiner's JOIN ``name`` carries '\\n» Anna: I resign.
    Bye!\\n» x'; the host seats it as it is (no check of the characters), the name goes into the
    signed setup and every peer's screens: each of its chat lines and each narrated event ('x
    buys ...') prints a line that reads as player Anna's. Same fix as above (clean or refuse at
    the JOIN: the host refuses, the joiner cleans its own)."""
    host = Lobby.host(HOST_ID, edition="classico", seats=3, name="Host", endpoint=HOST, chain_length=8)
    mallory = Identity.from_seed(b"h107-mallory")
    join = Lobby.join(mallory, endpoint=("10.0.0.2", 5000),
                      host_addr=HOST, game_id=host.game_id, name=FAKE, chain_length=8, now=0.0,
                      host_keys=(HOST_ID.public_key, HOST_ID.x25519_public_key))
    net = SimNetwork(FaultPlan(seed=1))
    net.attach(HOST, LobbyPeer(HOST_ID, host, 100))
    net.attach(("10.0.0.2", 5000), LobbyPeer(mallory, join, 101))
    while net.now < 3 and net.step():
        pass
    names = [p.name for p, _ in host.admission.joined.values()]
    assert len(names) == 2, names  # it was seated
    assert all(n.isprintable() for n in names), f"seated names: {names!r}"
