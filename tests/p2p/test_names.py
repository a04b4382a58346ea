"""Names shown on screens (protocol.md §C2.1 'Names'): ``chat.clean_name`` / ``chat.name_ok``, the
host refusing a JOIN whose name is not clean, a joiner refusing a setup with such a name, our own
name cleaned by ``Lobby``, and the names chat lines and STATUS are shown with (H107 s11 #8)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from p2p import const as C
from p2p.chat import PLAYER, SPECTATOR, ChatRoom, clean_name, name_ok, shown_name
from p2p.faults import FaultPlan, SimNetwork
from p2p.identity import Identity
from p2p.lobby import Lobby
from p2p.wire import MSG_CHAT, Chat, seal_message

from redteam_lan_kit import GID, HOST_ID
from test_lobby_loss import HOST, LobbyPeer

FAKE = "\n» Anna: I resign. Bye!\n» x"
JOINER = ("10.0.0.2", 5000)


def test_clean_name_examples():
    assert clean_name(FAKE) == "» Anna: I resign. Bye!» x"
    assert clean_name("  Bruno\t") == "Bruno"
    assert clean_name("Anna\u202e") == "Anna"  # a bidi override (Cf) turns the rest of a line round
    assert clean_name("a\u2028b\x85c\x7f") == "abc"  # line separator (Zl), NEL (C1), DEL
    assert clean_name("Zoë Müller 李") == "Zoë Müller 李"  # printable letters of any script stay
    assert clean_name("x" * 40) == "x" * C.MAX_NAME_LEN
    assert clean_name("y" * 31 + " z") == "y" * 31  # cut to 32, then stripped again
    assert name_ok("Anna") and name_ok("") and not name_ok(FAKE) and not name_ok(" Anna")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_clean_name_is_idempotent_printable_and_bounded(name):
    # Property (§C2.1 'Names'): whatever a peer sends, what is shown is one printable line of at
    # most 32 characters, and it passes the check it is held to.
    out = clean_name(name)
    assert out.isprintable() and len(out) <= C.MAX_NAME_LEN and out == out.strip()
    assert clean_name(out) == out and name_ok(out)
    assert name_ok(name) == (out == name)


def _lobby(joiner_name: str, *, host_name: str = "Host"):
    """A 2-seat lobby on the simulated network."""
    host = Lobby.host(HOST_ID, edition="classico", seats=2, name="Host", endpoint=HOST, chain_length=8)
    if host_name != "Host":  # a host that seats itself with a name our Lobby would have cleaned
        host.me = host.me._replace(name=host_name)
        host.admission.seat_host(host.me)
    joiner_id = Identity.from_seed(b"h112-joiner")
    join = Lobby.join(joiner_id, endpoint=("10.0.0.2", 5000),
                      host_addr=HOST, game_id=host.game_id, name=joiner_name, chain_length=8, now=0.0,
                      host_keys=(HOST_ID.public_key, HOST_ID.x25519_public_key))
    net = SimNetwork(FaultPlan(seed=1))
    peers = LobbyPeer(HOST_ID, host, 100), LobbyPeer(joiner_id, join, 101)
    net.attach(HOST, peers[0])
    net.attach(JOINER, peers[1])
    while net.now < 5 and net.step():
        pass
    return host, join, peers


def test_our_own_name_is_cleaned_before_we_join():
    # §C2.1 'Names': Lobby cleans the name it is given; the host seats that.
    host, join, peers = _lobby(FAKE)
    assert join.me.name == clean_name(FAKE)
    assert sorted(p.name for p, _ in host.admission.joined.values()) == sorted(["Host", clean_name(FAKE)])
    assert peers[0].started is not None and peers[1].started is not None


def test_the_host_refuses_a_join_whose_name_is_not_clean(monkeypatch):
    # §C2.1 'Names': another client's JOIN (here: ours without the cleaning of its own name)
    # with a line break in its name is dropped and counted ('bad_name'), never seated; the game
    # does not start with it.
    monkeypatch.setattr("p2p.lobby.clean_name", lambda name: name)
    host, join, peers = _lobby(FAKE)
    assert host.me.name == "Host"
    assert join.me.name == FAKE
    assert [p.name for p, _ in host.admission.joined.values()] == ["Host"]
    assert host.stats.get("bad_name", 0) >= 1
    assert peers[0].started is None and peers[1].started is None


def test_a_joiner_refuses_a_setup_with_a_name_that_is_not_clean():
    # §C2.1 'Names': a host seated under a name with a line break proposes a setup a joiner
    # refuses (it would print lines on every screen); the STATUS before showed the name cleaned.
    host, join, peers = _lobby("Bruno", host_name=FAKE)
    assert peers[1].aborted is not None and "name" in peers[1].aborted.reason
    assert peers[1].started is None


def test_chat_members_are_shown_with_clean_names():
    # §N9, §C2.1 'Names': a member's name (a WATCH's or a setup's) is shown cleaned; a relayed
    # author's name too.
    anna, prof = Identity.from_seed(b"h112-anna"), Identity.from_seed(b"h112-prof")
    room = ChatRoom(HOST_ID, GID, "Host\n", now=0.0, clock_ms=lambda: 1)
    assert room.name == "Host"
    room.set_members({anna.public_key: ("Anna", PLAYER), prof.public_key: (FAKE, SPECTATOR), HOST_ID.public_key:
                      ("\x1b[2J", PLAYER)})
    line = room.receive(seal_message(prof, MSG_CHAT, Chat(GID, prof.public_key, 5, "p", "hi")), 0.0)
    assert line is not None and line.name == clean_name(FAKE) and "\n" not in line.name
    stranger = Identity.from_seed(b"h112-stranger")
    relayed = room.receive(seal_message(stranger, MSG_CHAT, Chat(GID, stranger.public_key, 5, "\tEve\n", "yo")), 0.0,
                           relayed=True)
    assert relayed is not None and relayed.name == "Eve"


def test_a_name_with_nothing_printable_is_shown_as_a_question_mark():
    # §C2.1 'Names': every name shown from elsewhere is cleaned, '?' if nothing is left.
    assert shown_name("\n\t\x1b") == "?" and shown_name("") == "?"
    assert shown_name("  Anna\n ") == "Anna" == clean_name("  Anna\n ")
