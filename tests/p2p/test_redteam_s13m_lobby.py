"""Red team session 13 on main (H149): a hostile joiner in the signing phase of the lobby
(protocol.md §C2.2 steps 4-7).

Step 7 (H37/H77 fixes) promises that one seat cannot kill the lobby: a joiner that never signs,
or signs and never reveals, is removed and banned by the host at ``SETUP_TIMEOUT`` and the honest
seats go back to waiting (``tests/p2p/test_lobby_rounds.py``). §C2.2 also says: "A SETUP_SIG/SEED
signed by the seat it names carrying another setup hash means the host proposed different setups
to different seats: abort". It does not mean that: a seated joiner signs whatever hash it likes
with its own key. Likewise a SEED whose secret does not match the seat's own commitment proves
only that seat lied. Attacked: can ONE hostile joiner, with one signed datagram per honest seat,
abort every honest seat's lobby (host included) instead of being removed? Sans-I/O lobbies, the
harness's in-memory pump, virtual clock."""

from __future__ import annotations

import os

import pytest

from p2p.lobby import ABORTED
from p2p.wire import MSG_SEED, MSG_SETUP_SIG, SeedReveal, SetupSig, open_envelope, seal_message

from p2p_harness import addr, make_lobbies

HOSTILE = addr(2)


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


def _run(how):
    lobbies = make_lobbies(3)
    hostile = lobbies[HOSTILE]
    sent = []
    while True:
        batch = [(src, dst, raw) for src, lob in lobbies.items() for dst, raw in lob.messages_to_send()]
        if not batch:
            break
        for src, dst, raw in batch:
            if src == HOSTILE:
                out = _forge(hostile, raw, how)
                if out is not raw:
                    sent.append(tuple(dst))
                raw = out
            lobbies[tuple(dst)].receive_message(raw, src, 0.0, confirmed=True)
    assert sent, "the hostile joiner never reached the signing phase"
    return lobbies


@pytest.mark.xfail(strict=True, reason="H149 BREAK #2: one joiner's own signed SETUP_SIG/SEED aborts every seat")
@pytest.mark.parametrize("how", ["sig", "seed"])
def test_one_hostile_joiner_cannot_abort_the_honest_seats_lobby(how):
    """§C2.2 step 7's promise: a seat that does not confirm the setup (here: confirms another one,
    or reveals a secret its own commitment refuses) costs the others a round, not their lobby."""
    lobbies = _run(how)
    honest = [a for a in lobbies if a != HOSTILE]
    assert [lobbies[a].phase for a in honest if lobbies[a].phase == ABORTED] == []
