"""Red team session 13 on main (H149): a hostile joiner in the signing phase of the lobby
(protocol.md §C2.2 steps 4-7).

Step 7 (H37/H77 fixes) promises that one seat cannot kill the lobby: a joiner that never signs,
or signs and never reveals, is removed and banned by the host at ``SETUP_TIMEOUT`` and the honest
seats go back to waiting (``tests/p2p/test_lobby_rounds.py``). §C2.2 also says: "A SETUP_SIG/SEED
signed by the seat it names carrying another setup hash means the host proposed different setups
to different seats: abort". It does not mean that: a seated joiner signs whatever hash it likes
with its own key. Likewise a SEED whose secret does not match the seat's own commitment proves
only that seat lied. Attacked: can ONE hostile joiner, with one signed datagram per honest seat,
abort every honest seat's lobby (host included) instead of being removed? Sans-I/O lobbies, an
in-memory pump over keyed channels (each message carries its sender's X25519 key), virtual clock.

Fixed (H150, §C2.2 step 7 "A seat that lies"): such a message proves only its signer. The host
removes and bans that seat at once and opens a new round; a joiner blames it, drops it and follows
the host's new-round STATUS. Only a SETUP_SIG of the HOST's seat over another setup aborts a joiner
(the host proposed one setup and signed another)."""

from __future__ import annotations

import os

import pytest

from p2p.identity import Identity
from p2p.lobby import ABORTED, STARTED, WAITING, Lobby, LobbyAborted, LobbyPeerMisbehaved, PlayerRemoved
from p2p.wire import MSG_SEED, MSG_SETUP_SIG, SeedReveal, SetupSig, open_envelope, seal_message

from p2p_harness import CHAIN, addr, drain, make_lobbies

HOSTILE = addr(2)
HOST = addr(0)


def _forge(lob, raw, how):
    """The hostile joiner's replacement for its own SETUP_SIG (``sig``: over another setup hash)
    or SEED (``seed``: a secret that does not open its commitment), signed with its own key."""
    env = open_envelope(raw)
    if how == "sig" and env.mtype == MSG_SETUP_SIG:
        return seal_message(lob.identity, MSG_SETUP_SIG, SetupSig(lob.game_id, lob.my_seat, os.urandom(32), None))
    if how == "seed" and env.mtype == MSG_SEED:
        return seal_message(lob.identity, MSG_SEED, SeedReveal(lob.game_id, lob.my_seat, lob.setup_hash,
                                                               os.urandom(32), None))
    return raw


def _pump(lobbies, how, liar, sent):
    """Deliver until quiet over keyed channels; every message of ``liar`` goes through ``_forge``
    (the destinations of its forged ones are appended to ``sent``)."""
    while True:
        batch = [(src, dst, raw) for src, lob in lobbies.items() for dst, raw in lob.messages_to_send()]
        if not batch:
            return
        for src, dst, raw in batch:
            if src == liar:
                out = _forge(lobbies[liar], raw, how)
                if out is not raw:
                    sent.append(tuple(dst))
                raw = out
            if tuple(dst) in lobbies:
                lobbies[tuple(dst)].receive_message(raw, src, 0.0, lobbies[src].identity.x25519_public_key)


def _run(how, liar=HOSTILE):
    lobbies = make_lobbies(3)
    sent = []
    _pump(lobbies, how, liar, sent)
    assert sent, "the liar never reached the signing phase"
    return lobbies


@pytest.mark.parametrize("how", ["sig", "seed"])
def test_one_hostile_joiner_cannot_abort_the_honest_seats_lobby(how):
    """§C2.2 step 7's promise: a seat that does not confirm the setup (here: confirms another one,
    or reveals a secret its own commitment refuses) costs the others a round, not their lobby:
    the host removes and bans it at once, every honest seat goes back to waiting, and with a new
    player in the free seat every honest seat's lobby starts a game without the liar."""
    lobbies = _run(how)
    honest = [a for a in lobbies if a != HOSTILE]
    assert [a for a in honest if lobbies[a].phase == ABORTED] == []
    host = lobbies[HOST]
    assert all(lobbies[a].phase == WAITING and lobbies[a].round == 1 for a in honest)
    host_events = drain(host)
    assert [e.name for e in host_events if isinstance(e, PlayerRemoved)] == ["p2"]
    assert any(isinstance(e, LobbyPeerMisbehaved) for e in host_events)
    assert host.stats["seat_lied"] >= 1 and host.stats["removed"] == 1
    assert not any(isinstance(e, LobbyAborted) for a in honest[1:] for e in drain(lobbies[a]))
    liar = lobbies.pop(HOSTILE)
    # The host's REJECT removed it. Since H153 the host reveals last (§C2.2 step 5), so with its
    # lying SEED the liar never held every SEED and never "started" (it saw the host's seed before).
    assert liar.phase == ABORTED
    # The liar's key is banned: its JOIN is refused; a new player takes the seat.
    again = Lobby.join(liar.identity, endpoint=("127.0.0.9", 40009),
                       host_addr=HOST, game_id=host.game_id, name="p2", chain_length=CHAIN)
    (_, raw), = again.messages_to_send()
    host.receive_message(raw, ("127.0.0.9", 40009), 1.0, liar.identity.x25519_public_key)
    assert host.stats["banned"] == 1
    host.messages_to_send()  # the REJECT to the banned key
    lobbies[addr(5)] = Lobby.join(Identity.from_seed(b"late"), endpoint=addr(5), host_addr=HOST, game_id=host.game_id,
                                  name="p5", chain_length=CHAIN)
    _pump(lobbies, how, None, [])
    assert all(lob.phase == STARTED for lob in lobbies.values())
    players = {p.public_key for p in host.setup.players}
    assert liar.identity.public_key not in players and len(players) == 3
    assert len({lob.game_seed for lob in lobbies.values()}) == 1


def test_the_hosts_own_setup_sig_over_another_setup_still_aborts_the_joiners():
    """§C2.2 step 7 "A seat that lies": a SETUP_SIG signed by the HOST's seat over another setup
    hash than the one it proposed is the host's own equivocation (only the host signs with its
    key): every joiner aborts, blaming the host with the envelope."""
    lobbies = _run("sig", liar=HOST)
    for a in (addr(1), addr(2)):
        lob = lobbies[a]
        assert lob.phase == ABORTED
        evs = drain(lob)
        assert any(isinstance(e, LobbyAborted) and "host signed another setup" in e.reason for e in evs)
        bad = [e for e in evs if isinstance(e, LobbyPeerMisbehaved)]
        assert bad and bad[0].addr == HOST and open_envelope(bad[0].evidence).mtype == MSG_SETUP_SIG
