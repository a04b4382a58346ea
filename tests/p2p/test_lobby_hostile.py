"""A lobby strangers cannot touch (protocol.md §C2.2 "Checks"; issue 9 items 3, 5 and 6).

Sans-I/O: lobbies exchange their messages in memory. ``peer_key`` models what the node passes
from the transport (protocol.md §N2.2): a real peer's messages come over a channel keyed with its
X25519 key; a stranger's over a plain channel (None) or a channel keyed with a key of its own.
"""

from __future__ import annotations

import os
import random

import pytest

from p2p import const as C
from p2p.hidden import leaves_digest
from p2p.identity import Identity
from p2p.lobby import ABORTED, STARTED, LobbyAborted, LobbyPeerMisbehaved, Lobby
from p2p.reject import answers_hash
from p2p.wire import (MSG_JOIN, MSG_LEAVE, MSG_PROPOSAL, MSG_REJECT, MSG_SEED, MSG_SETUP_SIG, MSG_STATUS,
                      Player, Setup, open_envelope, pack, seal)

CHAIN = 64
NIENTE = "niente-e-come-sembra"


def addr(i):
    return ("127.0.0.1", 41000 + i)


def lobby_set(n, *, edition="race", advert="keys", seed=b"hostile"):
    """Host at addr(0) and n-1 joiners that know from the advert the host's keys (``advert`` =
    "keys", TXT pk/xk) or its fingerprint only ("fp"). Returns ({addr: Lobby}, {addr: Identity})."""
    ids = {addr(i): Identity.from_seed(seed + bytes([i])) for i in range(n)}
    host = Lobby.host(ids[addr(0)], edition=edition, seats=n, name="p0", endpoint=addr(0), demo_seed=seed,
                      chain_length=CHAIN)
    lobbies = {addr(0): host}
    hk = (ids[addr(0)].public_key, ids[addr(0)].x25519_public_key) if advert == "keys" else None
    fp = ids[addr(0)].fingerprint if advert == "fp" else None
    for i in range(1, n):
        lobbies[addr(i)] = Lobby.join(ids[addr(i)], endpoint=addr(i),
                                      host_addr=addr(0), game_id=host.game_id, name=f"p{i}",
                                      demo_seed=seed, chain_length=CHAIN, host_keys=hk, host_fp=fp)
    return lobbies, ids


def real_batch(lobbies, ids):
    """Every queued real message as (src, dst, raw, peer_key = the sender's X25519 key)."""
    return [(src, tuple(dst), raw, ids[src].x25519_public_key)
            for src, lob in lobbies.items() for dst, raw in lob.messages_to_send()]


def pump(lobbies, ids, rng=None, between=None):
    """Deliver until quiet; ``between()`` runs before every real delivery (junk injection)."""
    while True:
        batch = real_batch(lobbies, ids)
        if not batch:
            return
        if rng is not None:
            # Channels overtake each other; within one channel the transport keeps the order.
            chans: dict = {}
            for m in batch:
                chans.setdefault((m[0], m[1]), []).append(m)
            order = [c for c, msgs in chans.items() for _ in msgs]
            rng.shuffle(order)
            batch = [chans[c].pop(0) for c in order]
        for src, dst, raw, key in batch:
            if between is not None:
                between()
            lobbies[dst].receive_message(raw, src, 0.0, key)


def drain(lob):
    out = []
    while (e := lob.next_event()) is not None:
        out.append(e)
    return out


# --- forged messages of every lobby type -------------------------------------------------------

class Junk:
    """Plausible forged lobby messages (right game id, right sizes) from strangers: bad or
    foreign signatures, claims to be the host or a seat, replays to the wrong player."""

    def __init__(self, lobbies, ids, rng):
        self.rng = rng
        self.lobbies = lobbies
        self.host = lobbies[addr(0)]
        self.gid = self.host.game_id
        self.mal = Identity.from_seed(b"mallory")
        self.strangers = [os.urandom(32) for _ in range(16)]  # keys the transport let introduce
        self.sent = 0
        hid = ids[addr(0)]
        self.hk = (hid.public_key, hid.x25519_public_key)
        gid, mal = self.gid, self.mal
        zero = bytes(64)

        def forged(mtype, fields, signer=None):
            """Signed by ``signer`` (a key that is not the one it claims), or an all-zero signature."""
            return seal(signer, mtype, fields) if signer is not None else pack([mtype, pack(fields), zero])

        def player(ident=None):
            pk = ident.public_key if ident else os.urandom(32)
            xk = ident.x25519_public_key if ident else os.urandom(32)
            return [pk, xk, "zz", os.urandom(32), os.urandom(32), True, ("10.6.%d.%d" % tuple(os.urandom(2)), 5000)]

        fake_setup = Setup(C.PROTOCOL_VERSION, gid, "race", 2, CHAIN, (),
                           tuple(sorted((Player(*player(mal)), Player(*player())), key=lambda p: p[0])))
        sb = fake_setup.encode()
        self.pool = {
            # (A JOIN validly signed by a fresh key is no forgery: it may take an open seat.)
            MSG_JOIN: [forged(MSG_JOIN, [gid, 1, player()]) for _ in range(50)]
            + [forged(MSG_JOIN, [gid, 1, player(Identity.from_seed(b"x%d" % i))], mal) for i in range(20)],
            MSG_STATUS: [forged(MSG_STATUS, [gid, "race", 4, 4, ["evil"], *self.hk]),
                         forged(MSG_STATUS, [gid, "race", 4, 4, ["evil"], mal.public_key, mal.x25519_public_key],
                                mal)],
            MSG_REJECT: [forged(MSG_REJECT, [gid, ids[a].public_key, 1, *self.hk]) for a in ids]
            + [forged(MSG_REJECT, [gid, ids[a].public_key, 2, mal.public_key, mal.x25519_public_key], mal)
               for a in ids],
            MSG_LEAVE: [forged(MSG_LEAVE, [gid]), forged(MSG_LEAVE, [gid], mal)],
            MSG_PROPOSAL: [forged(MSG_PROPOSAL, [gid, sb, [["127.0.0.1", 1], ["127.0.0.1", 2]]], mal),
                           forged(MSG_PROPOSAL, [gid, sb, [["127.0.0.1", 1], ["127.0.0.1", 2]]])],
            MSG_SETUP_SIG: [forged(MSG_SETUP_SIG, [gid, s, os.urandom(32)]) for s in range(8)]
            + [forged(MSG_SETUP_SIG, [gid, s, os.urandom(32)], mal) for s in range(4)],
            MSG_SEED: [forged(MSG_SEED, [gid, s, os.urandom(32), os.urandom(32)]) for s in range(8)],
        }
        self.types = sorted(self.pool)

    def one(self):
        """Deliver one forged message to a random lobby, from a spoofed or a stranger's source."""
        rng = self.rng
        mtype = self.types[self.sent % len(self.types)]
        raw = rng.choice(self.pool[mtype])
        dst = rng.choice(list(self.lobbies))
        how = rng.randrange(3)
        if how == 0:  # spoofed source address of a real peer (the host, or a seat), plain channel
            src, key = rng.choice(list(self.lobbies)), None
        elif how == 1:  # a stranger's keyed channel (an introduced key)
            src, key = ("10.9.%d.%d" % (rng.randrange(4), rng.randrange(1, 250)), 4000), rng.choice(self.strangers)
        else:  # the real host's or a seat's address, over a channel keyed with Mallory's key
            src, key = rng.choice(list(self.lobbies)), self.mal.x25519_public_key
        self.lobbies[dst].receive_message(raw, src, 0.0, key)
        self.sent += 1


@pytest.mark.parametrize("advert", ["keys", "fp"])
def test_lobby_completes_under_100000_forged_messages_of_every_type(advert):
    """Issue 9 items 3 and 5: 100,000 forged lobby messages (every type; bad, foreign or zero
    signatures; the public game id; spoofed host and seat addresses) interleaved with a real
    4-seat set-up: it completes with one setup and one seed on every seat, nobody aborts, and
    nobody is blamed; every forgery is counted by reason. ``advert``: joiners know the host's keys
    from its advert, or only its fingerprint (they then take the keys of the first STATUS
    signed by a key with that fingerprint)."""
    total = 100_000
    lobbies, ids = lobby_set(4, advert=advert)
    rng = random.Random(9)
    junk = Junk(lobbies, ids, rng)
    per_real = 2500  # ~40 real messages in a 4-seat set-up

    def between():
        for _ in range(per_real):
            if junk.sent < total:
                junk.one()

    pump(lobbies, ids, rng=rng, between=between)
    while junk.sent < total:  # whatever is left, after the set-up
        junk.one()
    assert junk.sent == total
    assert {lob.phase for lob in lobbies.values()} == {STARTED}
    assert len({lob.setup_bytes for lob in lobbies.values()}) == 1
    assert len({lob.game_seed for lob in lobbies.values()}) == 1
    for lob in lobbies.values():
        evs = drain(lob)
        assert not [e for e in evs if isinstance(e, (LobbyAborted, LobbyPeerMisbehaved))]
    dropped = sum(lob.stats["dropped"] + lob.stats["malformed"] for lob in lobbies.values())
    assert dropped == total  # every forgery counted (early-buffered ones when dropped later)
    reasons = set().union(*(lob.stats for lob in lobbies.values()))
    assert {"bad_signature", "not_host", "key_mismatch"} <= reasons


def test_zero_signature_setup_sig_with_a_random_hash_does_not_abort():
    """Issue 9 item 3: the hash used to be compared before the signature; now an unsigned
    SETUP_SIG is dropped as such and the lobby completes."""
    lobbies, ids = lobby_set(3)
    host = lobbies[addr(0)]
    pump(lobbies, ids, between=lambda: host.receive_message(
        pack([MSG_SETUP_SIG, pack([host.game_id, 1, os.urandom(32)]), bytes(64)]), ("6.6.6.6", 9), 0.0))
    assert host.phase == STARTED and host.stats["bad_signature"] > 0
    assert not [e for e in drain(host) if isinstance(e, (LobbyAborted, LobbyPeerMisbehaved))]


def test_forged_reject_from_the_host_address_is_ignored():
    """Issue 9 item 5: an unsigned REJECT, or one signed by another key, from the host's address
    changes nothing; a genuine REJECT shows our own text for its code."""
    lobbies, ids = lobby_set(2)
    joiner = lobbies[addr(1)]
    gid = joiner.game_id
    mal = Identity.from_seed(b"evil")
    ours = answers_hash(joiner.admission.join_msg())  # version 6: the JOIN a REJECT answers (§C2.1)
    for raw in (pack([MSG_REJECT, pack([gid, ids[addr(1)].public_key, 1, *(ids[addr(0)].public_key,
                                                                          ids[addr(0)].x25519_public_key), ours]),
                      bytes(64)]),
                seal(mal, MSG_REJECT, [gid, ids[addr(1)].public_key, 1, mal.public_key, mal.x25519_public_key, ours])):
        joiner.receive_message(raw, addr(0), 0.0, None)
    assert joiner.phase != ABORTED and not drain(joiner)
    # A genuine REJECT meant for someone else, replayed to us: not for us.
    real = seal(ids[addr(0)], MSG_REJECT, [gid, os.urandom(32), 1, ids[addr(0)].public_key,
                                           ids[addr(0)].x25519_public_key, ours])
    joiner.receive_message(real, addr(0), 0.0, ids[addr(0)].x25519_public_key)
    assert joiner.phase != ABORTED and joiner.stats["not_for_us"] == 1
    # A genuine REJECT for our key answering a JOIN of another attempt (H156 BREAK #2): stale.
    old = seal(ids[addr(0)], MSG_REJECT, [gid, ids[addr(1)].public_key, 1, ids[addr(0)].public_key,
                                          ids[addr(0)].x25519_public_key, answers_hash(b"another attempt")])
    joiner.receive_message(old, addr(0), 0.0, ids[addr(0)].x25519_public_key)
    assert joiner.phase != ABORTED and joiner.stats["stale_reject"] == 1
    mine = seal(ids[addr(0)], MSG_REJECT, [gid, ids[addr(1)].public_key, 99, ids[addr(0)].public_key,
                                           ids[addr(0)].x25519_public_key, ours])
    joiner.receive_message(mine, addr(0), 0.0, ids[addr(0)].x25519_public_key)
    (ev,) = drain(joiner)
    assert isinstance(ev, LobbyAborted) and ev.reject_code == 99 and "code 99" in ev.reason


def test_status_must_come_from_the_advertised_host():
    """A STATUS signed by another key, or claiming the host's key with a bad signature, or over
    a channel keyed with another key, is dropped; the joiner keeps waiting for the real one."""
    lobbies, ids = lobby_set(2)
    joiner = lobbies[addr(1)]
    mal = Identity.from_seed(b"evil")
    gid = joiner.game_id
    hk = (ids[addr(0)].public_key, ids[addr(0)].x25519_public_key)
    joiner.receive_message(seal(mal, MSG_STATUS, [gid, "race", 2, 2, ["x"], mal.public_key,
                                                  mal.x25519_public_key]), addr(0), 0.0, None)
    joiner.receive_message(pack([MSG_STATUS, pack([gid, "race", 2, 2, ["x"], *hk]), bytes(64)]), addr(0), 0.0, None)
    real = seal(ids[addr(0)], MSG_STATUS, [gid, "race", 2, 1, ["p0"], *hk])
    joiner.receive_message(real, addr(0), 0.0, mal.x25519_public_key)  # relayed over Mallory's channel
    joiner.receive_message(real, ("10.0.0.1", 5), 0.0, hk[1])  # not from the host's address
    assert joiner.phase == "joining" and not drain(joiner)
    assert joiner.stats["not_host"] == 2 and joiner.stats["bad_signature"] == 2
    joiner.receive_message(real, addr(0), 0.0, hk[1])
    assert joiner.phase == "waiting"


def test_fingerprint_only_joiner_accepts_only_the_advertised_key():
    ids = [Identity.from_seed(b"fp%d" % i) for i in range(2)]
    host = Lobby.host(ids[0], edition="race", seats=2, name="h", endpoint=addr(0), chain_length=CHAIN)
    joiner = Lobby.join(ids[1], endpoint=addr(1), host_addr=addr(0), game_id=host.game_id, name="j", chain_length=CHAIN,
                        host_fp=ids[0].fingerprint)
    mal = Identity.from_seed(b"evil")
    joiner.receive_message(seal(mal, MSG_STATUS, [host.game_id, "race", 2, 1, ["x"], mal.public_key,
                                                  mal.x25519_public_key]), addr(0), 0.0)
    assert joiner.phase == "joining" and joiner.stats["not_host"] == 1
    (dst, join), = joiner.messages_to_send()
    host.receive_message(join, addr(1), 0.0)
    for dst, raw in host.messages_to_send():
        joiner.receive_message(raw, addr(0), 0.0)
    assert joiner.phase in ("signing", "revealing") and joiner.peer_keys() == [(addr(0), ids[0].x25519_public_key)]


def test_leave_only_from_the_joined_player_itself():
    lobbies, ids = lobby_set(3)
    host = lobbies[addr(0)]
    for src, dst, raw, key in real_batch({addr(1): lobbies[addr(1)]}, ids):
        host.receive_message(raw, src, 0.0, key)
    assert len(host.peer_addresses()) == 2
    gid = host.game_id
    mal = Identity.from_seed(b"evil")
    host.receive_message(seal(mal, MSG_LEAVE, [gid]), addr(1), 0.0, None)  # spoofed address
    host.receive_message(seal(ids[addr(1)], MSG_LEAVE, [gid]), addr(2), 0.0, None)  # replayed elsewhere
    assert len(host.peer_addresses()) == 2
    host.receive_message(seal(ids[addr(1)], MSG_LEAVE, [gid]), addr(1), 0.0, ids[addr(1)].x25519_public_key)
    assert len(host.peer_addresses()) == 1


def test_join_over_a_channel_keyed_with_another_key_is_refused():
    lobbies, ids = lobby_set(2)
    host = lobbies[addr(0)]
    (_, raw), = lobbies[addr(1)].messages_to_send()
    host.receive_message(raw, addr(1), 0.0, os.urandom(32))
    assert host.stats["key_mismatch"] == 1 and len(host.peer_addresses()) == 1


# --- hidden-information commitments are bound (issue 9 item 6) --------------------------------

def niente_lobbies():
    lobbies, ids = lobby_set(3, edition=NIENTE, seed=b"commit")
    return lobbies, ids


def test_every_seed_carries_every_seats_leaves_digest():
    """protocol.md §C12.2: each SEED lists SHA-256("lanopoli/1/hidden-leaves\\0" + leaves) of every
    seat in seat order; all agree; the game starts."""
    lobbies, ids = niente_lobbies()
    pump(lobbies, ids)
    seeds = []
    for lob in lobbies.values():
        assert lob.phase == STARTED
        from p2p.wire import decode_seed, unpack
        seeds = [decode_seed(open_envelope(r).body) for r in unpack(lob.log_header())[3]]
        assert [s.commits for s in seeds] == [tuple(leaves_digest(lv) for lv in lob.hidden_commits)] * 3


def test_a_seat_showing_different_leaves_to_different_peers_loses_its_seat():
    """Issue 9 item 6, §C2.2 step 7 case (c) (H153): a seat signs one SETUP_SIG (with its leaves)
    for one peer and another one (junk leaves) for another. The SEED round shows the peers hold
    different commitments, so no game starts with a framed victim; the victim holds the
    cheater's SEED contradicting the leaves it signed to it (proven) and forwards both to the
    host, which holds the other version: the host removes and bans the cheater and opens a new
    round. Before H153 every honest seat aborted."""
    lobbies, ids = niente_lobbies()
    cheater = addr(2)
    victim = addr(1)

    def tamper(src, dst, raw):
        if src == cheater and dst == victim and open_envelope(raw).mtype == MSG_SETUP_SIG:
            lob = lobbies[cheater]
            junk = os.urandom(len(lob.hidden_commits[lob.my_seat]))
            return seal(ids[cheater], MSG_SETUP_SIG, [lob.game_id, lob.my_seat, lob.setup_hash, junk])
        return raw

    while True:
        batch = real_batch(lobbies, ids)
        if not batch:
            break
        for src, dst, raw, key in batch:
            lobbies[dst].receive_message(tamper(src, dst, raw), src, 0.0, key)
    honest = [lobbies[a] for a in lobbies if a != cheater]
    assert all(lob.phase == "waiting" and lob.round == 1 for lob in honest)
    assert lobbies[victim].stats["relayed"] >= 1 and lobbies[addr(0)].stats["removed"] == 1
    for lob in honest:
        evs = drain(lob)
        assert not any(isinstance(e, LobbyAborted) for e in evs)
        assert any(isinstance(e, LobbyPeerMisbehaved) and e.addr == cheater for e in evs)


def test_two_different_signed_setup_sigs_from_one_seat_are_blamed_with_evidence():
    """Both SETUP_SIGs of one seat reach one peer while it signs: signed equivocation, blamed
    with the second as evidence (§C2.2 step 7 case (a)); the first is kept (the SEEDs' digests
    show which each seat kept, §C12.2), so the lobby goes on (before H153 it aborted)."""
    lobbies, ids = niente_lobbies()
    host = lobbies[addr(0)]
    cheater = addr(2)
    for _ in range(2):  # JOINs, STATUS, PROPOSAL: everyone signing
        for src, dst, raw, key in real_batch(lobbies, ids):
            if open_envelope(raw).mtype in (MSG_SETUP_SIG, MSG_SEED):
                continue
            lobbies[dst].receive_message(raw, src, 0.0, key)
    lob = lobbies[cheater]
    assert lob.setup is not None and host.phase == "signing"
    a = seal(ids[cheater], MSG_SETUP_SIG, [lob.game_id, lob.my_seat, lob.setup_hash, lob.hidden_commits[lob.my_seat]])
    b = seal(ids[cheater], MSG_SETUP_SIG, [lob.game_id, lob.my_seat, lob.setup_hash,
                                           os.urandom(len(lob.hidden_commits[lob.my_seat]))])
    key = ids[cheater].x25519_public_key
    host.receive_message(a, cheater, 0.0, key)
    host.receive_message(b, cheater, 0.0, key)
    assert host.phase == "signing" and host.stats["seat_lied"] == 1
    assert any(isinstance(e, LobbyPeerMisbehaved) and "two different" in e.reason and e.evidence == b
               for e in drain(host))


def test_replayed_join_from_elsewhere_does_not_move_the_player():
    """A genuine JOIN replayed from another address is dropped, over a plain channel or one keyed
    with the player's own key: its signed endpoint is not that source (§C2.2 step 2, version 6,
    ``endpoint_mismatch``; version 5 let the keyed channel move it)."""
    lobbies, ids = lobby_set(3)
    host = lobbies[addr(0)]
    (_, join), = lobbies[addr(1)].messages_to_send()
    xk = ids[addr(1)].x25519_public_key
    host.receive_message(join, addr(1), 0.0, xk)
    host.messages_to_send()
    host.receive_message(join, ("10.6.6.6", 6), 0.0, None)
    assert addr(1) in host.peer_addresses() and ("10.6.6.6", 6) not in host.peer_addresses()
    assert host.stats["endpoint_mismatch"] == 1 and host.messages_to_send() == []
    host.receive_message(join, ("127.0.0.1", 5999), 0.0, xk)
    assert ("127.0.0.1", 5999) not in host.peer_addresses() and host.stats["endpoint_mismatch"] == 2
