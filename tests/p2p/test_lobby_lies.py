"""One seat's signature no longer aborts a lobby, and the host's lies still do (protocol.md §C2.2
step 7, "A seat that lies" and "Evidence to the host"; §C12.2; H153, RV13-B #2, #3).

Cases: (a) two SETUP_SIGs of one seat over our setup hash with other leaves; (b) malformed leaves
or SEED digests; (c) SEEDs showing other leaves digests; a lie told to one joiner only (RV13-B #2:
the victim forwards it to the host); an earlier round's SETUP_SIG replayed to a newcomer (RV13-B
#3: unproven unless over the host's keyed channel). Sans-I/O lobbies over keyed channels (each
message carries its sender's X25519 key), virtual clock; ``lie(src, dst, raw)`` rewrites what a
hostile seat sends (None: not sent)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p import const as C
from p2p.hidden import leaves_digest
from p2p.identity import Identity
from p2p.lobby import (ABORTED, REVEALING, SIGNING, STARTED, WAITING, Lobby, LobbyAborted, LobbyPeerMisbehaved,
                       PlayerRemoved)
from p2p.setup_lies import RELAY_PER_SEAT
from p2p.setup_round import LATE_GRACE_S
from p2p.wire import (LOBBY_DECODERS, MSG_SEED, MSG_SETUP_SIG, SeedReveal, SetupSig, open_envelope,
                      seal_message)

from p2p_harness import CHAIN, addr, drain, make_lobbies

HOST, P1, P2 = addr(0), addr(1), addr(2)
NIENTE = "niente-e-come-sembra"


def pump(lobbies, now=0.0, lie=None, tap=None):
    """Deliver until quiet over keyed channels (``tap(src, dst, raw)`` sees every message sent)."""
    while True:
        batch = [(s, tuple(d), r) for s, lob in lobbies.items() for d, r in lob.messages_to_send()]
        if not batch:
            return
        for src, dst, raw in batch:
            if tap is not None:
                tap(src, dst, raw)
            if lie is not None and (raw := lie(src, dst, raw)) is None:
                continue
            if dst in lobbies:
                lobbies[dst].receive_message(raw, src, now, lobbies[src].identity.x25519_public_key)


def run_until(lobbies, until, lie=None, clock=None):
    """Fire every lobby's timers in time order up to ``until``, pumping after each (``clock["now"]``: the time)."""
    now = 0.0
    while True:
        timers = [t for lob in lobbies.values() if (t := lob.get_timer()) is not None]
        if not timers or min(timers) > until:
            return
        now = min(timers)
        if clock is not None:
            clock["now"] = now
        for lob in lobbies.values():
            if (t := lob.get_timer()) is not None and t <= now:
                lob.handle_timer(now)
        pump(lobbies, now, lie)


def sig(lob, setup_hash=None, leaves=b"keep"):
    """A SETUP_SIG signed by ``lob``'s key (its seat), over ``setup_hash`` (ours by default)."""
    if leaves == b"keep":
        leaves = None if lob.hidden_commits is None else lob.hidden_commits[lob.my_seat]
    return seal_message(lob.identity, MSG_SETUP_SIG,
                        SetupSig(lob.game_id, lob.my_seat, setup_hash or lob.setup_hash, leaves))


def seed(lob, raw, secret=None, commits=b"keep"):
    """``lob``'s SEED ``raw`` re-signed with another ``secret`` and/or ``commits``."""
    m = LOBBY_DECODERS[MSG_SEED](open_envelope(raw).body)
    return seal_message(lob.identity, MSG_SEED, SeedReveal(lob.game_id, lob.my_seat, lob.setup_hash,
                                                           secret or m.secret, m.commits if commits == b"keep"
                                                           else commits))


def kind(raw):
    return open_envelope(raw).mtype


def assert_liar_removed_and_round_restarted(lobbies, liar, name, proven=True):
    """The host removed and banned ``liar`` (PlayerRemoved ``name``; ``proven``: on its signed
    lie, counted ``seat_lied``), every honest seat is back in waiting at round 1, none aborted;
    with a new player every honest seat starts one game without the liar."""
    host = lobbies[HOST]
    honest = [a for a in lobbies if a != liar]
    assert {a: lobbies[a].phase for a in honest} == {a: WAITING for a in honest}
    assert all(lobbies[a].round == 1 for a in honest)
    host_events = drain(host)
    assert [e.name for e in host_events if isinstance(e, PlayerRemoved)] == [name]
    assert (host.stats.get("seat_lied", 0) >= 1) == proven and host.stats["removed"] == 1
    assert not any(isinstance(e, LobbyAborted) for a in honest for e in drain(lobbies[a]))
    gone = lobbies.pop(liar)
    lobbies[addr(7)] = Lobby.join(Identity.from_seed(b"late"), endpoint=addr(7),
                                  host_addr=HOST, game_id=host.game_id, name="p7",
                                  chain_length=CHAIN)
    pump(lobbies)
    assert all(lob.phase == STARTED for lob in lobbies.values())
    assert gone.identity.public_key not in {p.public_key for p in host.setup.players}
    assert len({lob.game_seed for lob in lobbies.values()}) == 1


def hostile(lobbies, liar, how, only_to=None):
    """``lie`` for ``pump``: ``liar``'s SETUP_SIG/SEED replaced by ``how(lob, raw)`` (to every seat,
    or ``only_to`` that address; the others get its honest ones)."""
    def lie(src, dst, raw):
        if src == liar and (only_to is None or dst == only_to) and kind(raw) in (MSG_SETUP_SIG, MSG_SEED):
            return how(lobbies[liar], raw)
        return raw
    return lie


# --- RV13-B #2: a lie told to one joiner only ---------------------------------------------------

@pytest.mark.parametrize("what", ["other_hash", "short_leaves"])
def test_a_lie_told_to_one_joiner_only_gets_the_liar_removed_not_the_victim(what):
    """§C2.2 step 7 "Evidence to the host" (RV13-B #2): the liar sends its lie to the victim only
    and its honest copies to the host. Before H153 the victim never revealed and the host removed
    and banned the VICTIM at SETUP_TIMEOUT. Now the victim forwards the signed lie to the host over
    the host's channel and the host removes the liar at once."""
    lobbies = make_lobbies(3)

    def how(lob, raw):
        if what == "other_hash" and kind(raw) == MSG_SETUP_SIG:
            return sig(lob, os.urandom(32))
        return raw
    if what == "short_leaves":
        lobbies = make_lobbies(3, edition=NIENTE)
        how = lambda lob, raw: sig(lob, leaves=b"\0" * 32) if kind(raw) == MSG_SETUP_SIG else raw  # noqa: E731
    pump(lobbies, lie=hostile(lobbies, P2, how, only_to=P1))
    victim = lobbies[P1]
    assert victim.stats["relayed"] >= 1
    if what == "other_hash":  # unproven at a joiner (the host may have shown P2 another setup)
        assert victim.stats["unproven_hash"] >= 1 and victim.stats.get("seat_lied", 0) == 0
        assert not any(isinstance(e, LobbyPeerMisbehaved) for e in drain(victim))
    assert lobbies[HOST].stats["seat_lied"] == 1
    assert_liar_removed_and_round_restarted(lobbies, P2, "p2")


@pytest.mark.parametrize("what", ["bad_secret", "withheld"])
def test_a_seed_lie_or_silence_towards_one_joiner_after_the_host_started_is_caught_up(what):
    """§C2.2 step 5 *Late seats* (H153): the liar's SEED to the victim does not open its
    commitment (or never comes); the host got the honest one, held every SEED and started with
    the liar. Before, the victim lacked that seat's secret and aborted at its deadline while the
    others played on. Now the victim's next re-send reaches the started host, which sends it
    every SEED it holds; the victim keeps the liar's honest SEED (signed by it, forwarded over
    the host's channel) and starts the same game."""
    lobbies = make_lobbies(3)
    how = (lambda lob, raw: seed(lob, raw, secret=os.urandom(32))) if what == "bad_secret" else \
        (lambda lob, raw: None)
    lie = hostile(lobbies, P2, lambda lob, raw: how(lob, raw) if kind(raw) == MSG_SEED else raw, only_to=P1)
    pump(lobbies, lie=lie)
    victim = lobbies[P1]
    assert victim.phase == REVEALING and lobbies[HOST].phase == lobbies[P2].phase == STARTED
    if what == "bad_secret":
        assert victim.stats["seat_lied"] == 1 and victim.stats["relayed"] == 1
    run_until(lobbies, C.SETUP_TIMEOUT, lie)
    assert victim.phase == STARTED and victim.stats["forwarded_in"] >= 1
    assert len({lob.game_seed for lob in lobbies.values()}) == 1
    assert not any(isinstance(e, LobbyAborted) for e in drain(victim))


def test_a_setup_sig_withheld_from_one_joiner_is_caught_up_by_the_host():
    """§C2.2 step 5 *Late seats* (H153): the liar never sends the victim its SETUP_SIG, so the
    victim never reveals. Before, the host removed and banned the VICTIM at SETUP_TIMEOUT (as a
    seat that did not confirm) and the liar kept its seat. Now the victim's re-sent SETUP_SIG
    reaches the host while the host reveals without the victim's SEED: the host sends it every
    SETUP_SIG it holds, the victim keeps the liar's, reveals, and every seat starts one game."""
    lobbies = make_lobbies(3, edition=NIENTE)
    lie = hostile(lobbies, P2, lambda lob, raw: None if kind(raw) == MSG_SETUP_SIG else raw, only_to=P1)
    pump(lobbies, lie=lie)
    assert lobbies[P1].phase == SIGNING
    run_until(lobbies, C.SETUP_TIMEOUT, lie)
    assert all(lob.phase == STARTED for lob in lobbies.values())
    assert len({lob.game_seed for lob in lobbies.values()}) == 1
    assert lobbies[HOST].stats.get("removed", 0) == 0


@pytest.mark.parametrize("what", ["bad_secret", "withheld"])
def test_a_seed_lie_or_silence_towards_the_host_only_starts_nobody(what):
    """§C2.2 step 5 "The host reveals last" (H153): the liar sends its honest SEED to the joiner
    and a lying one (or none) to the host. Before, the joiner held every SEED and started while
    the host gave the round up; it never followed the new round and the host removed and banned
    the honest joiner as stale. Now the host reveals only once it holds every other valid SEED,
    so nobody starts; the host removes the liar (at once, or at SETUP_TIMEOUT as silent)."""
    lobbies = make_lobbies(3)
    how = (lambda lob, raw: seed(lob, raw, secret=os.urandom(32))) if what == "bad_secret" else \
        (lambda lob, raw: None)
    lie = hostile(lobbies, P2, lambda lob, raw: how(lob, raw) if kind(raw) == MSG_SEED else raw, only_to=HOST)
    pump(lobbies, lie=lie)
    assert lobbies[P1].phase != STARTED
    run_until(lobbies, C.SETUP_TIMEOUT, lie)
    assert_liar_removed_and_round_restarted(lobbies, P2, "p2", proven=what == "bad_secret")


# --- RV13-B #3: an earlier round's SETUP_SIG replayed ------------------------------------------

def _two_rounds():
    """Round 0 given up (P2 lied to everyone), P2 gone; returns (lobbies, host's round-0 SETUP_SIG)."""
    lobbies = make_lobbies(3)
    host_sigs = []
    lie = hostile(lobbies, P2, lambda lob, raw: sig(lob, os.urandom(32)) if kind(raw) == MSG_SETUP_SIG else raw)
    pump(lobbies, lie=lie, tap=lambda s, d, r: host_sigs.append(r) if s == HOST and kind(r) == MSG_SETUP_SIG
         else None)
    assert lobbies[HOST].round == 1 and host_sigs
    lobbies.pop(P2)
    return lobbies, host_sigs[0]


def test_a_replayed_host_setup_sig_of_an_earlier_round_does_not_abort_a_newcomer():
    """§C2.2 step 7 (RV13-B #3): a newcomer of round 1 never saw round 0's setup; the host's
    round-0 SETUP_SIG replayed to it over a plain channel is valid and of an unknown hash. Before
    H153 it aborted the newcomer blaming the honest host; now it is dropped (``unproven_hash``),
    nobody is blamed, and the game starts. Only over the host's keyed channel would it abort."""
    lobbies, old = _two_rounds()
    host = lobbies[HOST]
    late = addr(5)
    lobbies[late] = Lobby.join(Identity.from_seed(b"newcomer"), endpoint=late,
                               host_addr=HOST, game_id=host.game_id, name="p5",
                               chain_length=CHAIN)
    replayed = []

    def replay(src, dst, raw):
        if dst == late and kind(raw) == MSG_SETUP_SIG and not replayed:
            replayed.append(1)
            lobbies[late].receive_message(old, ("127.0.0.1", 49999), 0.0, None)  # plain channel
        return raw
    pump(lobbies, lie=replay)
    new = lobbies[late]
    assert replayed and new.stats["unproven_hash"] == 1
    assert not any(isinstance(e, (LobbyAborted, LobbyPeerMisbehaved)) for e in drain(new))
    assert all(lob.phase == STARTED for lob in lobbies.values())


def test_the_hosts_other_hash_over_its_keyed_channel_still_aborts():
    """§C2.2 step 7: over the host's keyed channel the host's SETUP_SIG over another hash is
    fresh and the host's own: the joiner aborts blaming the host (the host's lie). It forwards
    nothing: over a joiner's channel that envelope proves nothing (RV16-A F2)."""
    lobbies = make_lobbies(3)
    pump(lobbies, lie=hostile(lobbies, HOST, lambda lob, raw: sig(lob, os.urandom(32))
                              if kind(raw) == MSG_SETUP_SIG else raw))
    for a in (P1, P2):
        evs = drain(lobbies[a])
        assert lobbies[a].phase == ABORTED
        assert any(isinstance(e, LobbyPeerMisbehaved) and e.addr == HOST for e in evs)
        assert lobbies[a].stats.get("relayed", 0) == 0


# --- (a) two SETUP_SIGs of one seat over our hash --------------------------------------------

@pytest.mark.parametrize("seen_by", ["host", "joiner"])
def test_a_second_setup_sig_with_other_leaves_is_blamed_and_changes_nothing(seen_by):
    """§C2.2 step 7 case (a): a second SETUP_SIG signed by one seat over our setup hash with other
    leaves proves only that seat, and by itself changes nothing: the first one is kept and every
    SEED's digests show which one each seat kept (§C12.2). Here every seat kept the honest one:
    the seat that got both blames the signer (``seat_lied``) and all start one game. Before H153
    that seat aborted its lobby."""
    lobbies = make_lobbies(3, edition=NIENTE)
    target = HOST if seen_by == "host" else P1
    sent = []

    def how(lob, raw):
        if kind(raw) == MSG_SETUP_SIG and not sent:
            sent.append(1)
            lobbies[target].receive_message(raw, P2, 0.0, lob.identity.x25519_public_key)
            return sig(lob, leaves=os.urandom(len(lob.hidden_commits[lob.my_seat])))
        return raw
    pump(lobbies, lie=hostile(lobbies, P2, how, only_to=target))
    assert lobbies[target].stats["seat_lied"] == 1
    assert any(isinstance(e, LobbyPeerMisbehaved) and e.addr == P2 and "two different" in e.reason
               for e in drain(lobbies[target]))
    assert all(lob.phase == STARTED for lob in lobbies.values())
    assert len({lob.game_seed for lob in lobbies.values()}) == 1


def test_two_versions_that_matter_remove_their_signer():
    """§C2.2 step 7 case (a) then (c): the host keeps the junk version it got first, the joiner
    the honest one. The liar's SEED states the digest of its honest leaves, which contradicts
    the leaves it signed to the host: proven, removed and banned, new round. Before H153 every
    seat aborted."""
    lobbies = make_lobbies(3, edition=NIENTE)
    sent = []

    def how(lob, raw):
        if kind(raw) == MSG_SETUP_SIG and not sent:
            sent.append(1)
            junk = sig(lob, leaves=os.urandom(len(lob.hidden_commits[lob.my_seat])))
            lobbies[HOST].receive_message(junk, P2, 0.0, lob.identity.x25519_public_key)
        return raw
    pump(lobbies, lie=hostile(lobbies, P2, how, only_to=HOST))
    assert_liar_removed_and_round_restarted(lobbies, P2, "p2")


def test_the_hosts_two_setup_sigs_still_abort_the_joiners():
    """§C2.2 step 7 case (a), the host's seat: two versions signed by the host over our hash are
    the host's lie (no replay: our hash); the joiner aborts blaming the host."""
    lobbies = make_lobbies(3, edition=NIENTE)

    def how(lob, raw):
        if kind(raw) == MSG_SETUP_SIG and lob.phase == SIGNING:
            lobbies[P1].receive_message(raw, HOST, 0.0, lob.identity.x25519_public_key)
            return sig(lob, leaves=os.urandom(len(lob.hidden_commits[lob.my_seat])))
        return raw
    pump(lobbies, lie=hostile(lobbies, HOST, how, only_to=P1))
    assert lobbies[P1].phase == ABORTED
    assert any(isinstance(e, LobbyPeerMisbehaved) and e.addr == HOST and "two different" in e.reason
               for e in drain(lobbies[P1]))


def test_a_host_showing_one_joiner_other_leaves_is_proven_by_the_joiners_and_aborts_them():
    """§C2.2 step 7 case (c), the host's seat: the host signs other leaves for P1 than for P2.
    Each joiner's SEED states the host's leaves it holds, so each sees the other's disagree and
    forwards the host's SETUP_SIG it holds to the other joiner: each then holds two versions
    signed by the host — the host's lie — and aborts naming the host's seat; nobody starts."""
    lobbies = make_lobbies(3, edition=NIENTE)

    def how(lob, raw):
        if kind(raw) == MSG_SETUP_SIG:
            return sig(lob, leaves=os.urandom(len(lob.hidden_commits[lob.my_seat])))
        return raw
    pump(lobbies, lie=hostile(lobbies, HOST, how, only_to=P1))
    host_seat = lobbies[HOST].my_seat
    for a in (P1, P2):
        evs = drain(lobbies[a])
        assert lobbies[a].phase == ABORTED and lobbies[a].stats["forwarded_in"] >= 1
        assert any(isinstance(e, LobbyAborted) and f"seat {host_seat} signed" in e.reason for e in evs)
        assert all(e.addr == HOST for e in evs if isinstance(e, LobbyPeerMisbehaved))
    assert lobbies[HOST].phase != STARTED


# --- (b) malformed leaves or digests -------------------------------------------------------

@pytest.mark.parametrize("what", ["short_leaves", "digest_count"])
def test_malformed_leaves_or_digests_remove_their_signer(what):
    """§C2.2 step 7 case (b), §C12.2: leaves of the wrong size in a SETUP_SIG, or a SEED with the
    wrong count of digests, signed by that seat over our hash: only it can have made them.
    Before H153 every seat aborted; now the host removes and bans the seat."""
    lobbies = make_lobbies(3, edition=NIENTE)

    def how(lob, raw):
        if what == "short_leaves" and kind(raw) == MSG_SETUP_SIG:
            return sig(lob, leaves=b"\0" * 32)
        if what == "digest_count" and kind(raw) == MSG_SEED:
            return seed(lob, raw, commits=(b"\0" * 32,) * 2)
        return raw
    pump(lobbies, lie=hostile(lobbies, P2, how))
    assert_liar_removed_and_round_restarted(lobbies, P2, "p2")


# --- (c) SEEDs showing other leaves digests ----------------------------------------------------

def test_leaves_shown_to_one_joiner_with_a_seed_to_match_are_proven_by_its_evidence():
    """§C2.2 step 7 case (c), §C12.2: the liar shows the victim other leaves AND sends it a SEED
    whose own digest matches them (honest ones to the others): no seat holds a SEED contradicting
    what its sender signed to it. The host, whose digests the victim's SEED contradicts, keeps
    its SEED back (nobody starts) and sends the victim its own version of the liar's SETUP_SIG;
    the victim now holds two versions signed by the liar and forwards them to the host: proven,
    removed. Before H153 every seat aborted."""
    lobbies = make_lobbies(3, edition=NIENTE)
    junk = {}

    def how(lob, raw):
        n = len(lob.hidden_commits[lob.my_seat])
        junk.setdefault("leaves", os.urandom(n))
        if kind(raw) == MSG_SETUP_SIG:
            return sig(lob, leaves=junk["leaves"])
        commits = list(LOBBY_DECODERS[MSG_SEED](open_envelope(raw).body).commits)
        commits[lob.my_seat] = leaves_digest(junk["leaves"])
        return seed(lob, raw, commits=tuple(commits))
    pump(lobbies, lie=hostile(lobbies, P2, how, only_to=P1))
    assert lobbies[HOST].stats["leaves_disagree"] == 1 and lobbies[P1].stats["relayed"] >= 1
    assert_liar_removed_and_round_restarted(lobbies, P2, "p2")


def test_leaves_shown_to_one_joiner_with_its_seed_withheld_from_it_still_remove_the_liar():
    """§C2.2 step 7 case (c): the liar shows the victim other leaves and never sends it its SEED,
    so the victim never holds every SEED (nor runs the check of case c). The host finds the
    victim's SEED against its digests, keeps its SEED back and shows the victim its version of
    the liar's SETUP_SIG: the victim holds two versions and forwards them, and the host removes
    the liar, never the victim, which it would otherwise find unbacked at SETUP_TIMEOUT."""
    lobbies = make_lobbies(3, edition=NIENTE)
    junk = []

    def how(lob, raw):
        if kind(raw) == MSG_SEED:
            return None
        junk.append(1)
        return sig(lob, leaves=os.urandom(len(lob.hidden_commits[lob.my_seat])))
    pump(lobbies, lie=hostile(lobbies, P2, how, only_to=P1))
    assert junk and lobbies[P1].stats["relayed"] >= 1
    assert_liar_removed_and_round_restarted(lobbies, P2, "p2")


def test_a_seed_misstating_a_third_seats_leaves_costs_its_sender_the_seat_at_the_timeout():
    """§C2.2 step 7 case (c), unproven: P2's SEED claims other leaves of P1 than P1 signed. From
    one SEED nobody can tell whether P1 showed two versions or P2 lied; the joiners forward what
    they hold, nothing proves P1, and the host removes the unbacked claimer P2 at SETUP_TIMEOUT
    (as a seat that did not confirm). Nobody aborts, P1 keeps its seat."""
    lobbies = make_lobbies(3, edition=NIENTE)
    p1_seat = []

    def how(lob, raw):
        if kind(raw) != MSG_SEED:
            return raw
        commits = list(LOBBY_DECODERS[MSG_SEED](open_envelope(raw).body).commits)
        i = [p.public_key for p in lob.setup.players].index(lobbies[P1].identity.public_key)
        p1_seat.append(i)
        commits[i] = os.urandom(32)
        return seed(lob, raw, commits=tuple(commits))
    lie = hostile(lobbies, P2, how)
    pump(lobbies, lie=lie)
    assert p1_seat and lobbies[HOST].phase == REVEALING and lobbies[HOST].stats["leaves_disagree"] == 1
    assert not any(lob.phase == ABORTED for lob in lobbies.values())
    run_until(lobbies, C.SETUP_TIMEOUT, lie)
    assert_liar_removed_and_round_restarted(lobbies, P2, "p2", proven=False)


# --- evidence at the host is evidence only ----------------------------------------------------

def test_a_forwarded_honest_envelope_is_kept_and_a_strangers_is_key_mismatch():
    """§C2.2 step 7 *Evidence to the host*: an honest seat's SETUP_SIG the host lacks, forwarded
    by another seat, is checked (signature by that seat, our round) and kept as what it is, that
    seat's signature (``forwarded_in``); nobody is blamed. Over a channel keyed with a key that is
    no seat's it is ``key_mismatch`` as before."""
    lobbies = make_lobbies(3)
    held = []
    pump(lobbies, lie=lambda s, d, r: (held.append(r), None)[1] if s == P2 and kind(r) == MSG_SETUP_SIG else r)
    host = lobbies[HOST]
    assert host.phase == SIGNING and held
    host.receive_message(held[0], addr(9), 0.0, os.urandom(32))
    assert host.stats["key_mismatch"] == 1 and host.phase == SIGNING
    host.receive_message(held[0], P1, 0.0, lobbies[P1].identity.x25519_public_key)
    assert host.stats["forwarded_in"] == 1 and host.phase == REVEALING
    assert not any(isinstance(e, (LobbyPeerMisbehaved, PlayerRemoved)) for e in drain(host))


def test_a_joiner_forwards_at_most_relay_per_seat_envelopes_of_one_seat_per_round():
    """§C2.2 "Evidence to the host": a seat flooding a joiner with other-hash SETUP_SIGs makes it
    forward at most ``RELAY_PER_SEAT`` of them (each costs the host one signature check)."""
    lobbies = make_lobbies(3)
    flood = []

    def lie(src, dst, raw):
        if src == P2 and dst == P1 and kind(raw) == MSG_SETUP_SIG and not flood:
            lob = lobbies[P2]
            flood.extend(sig(lob, os.urandom(32)) for _ in range(3 * RELAY_PER_SEAT))
            for r in flood:
                lobbies[P1].receive_message(r, P2, 0.0, lob.identity.x25519_public_key)
        return raw
    pump(lobbies, lie=lie)
    assert flood and lobbies[P1].stats["relayed"] == RELAY_PER_SEAT
    assert lobbies[P1].stats["unproven_hash"] == 3 * RELAY_PER_SEAT
    assert lobbies[HOST].stats["removed"] == 1


# --- property: whatever one hostile joiner signs, no honest seat is blamed or removed --------

SIG_LIES = ("honest", "other_hash", "junk_leaves", "short_leaves", "withhold", "two_versions")
SEED_LIES = ("honest", "bad_secret", "third_digest", "host_digest", "own_digest", "withhold")


def _sig_lie(lobbies, lob, raw, what, dst):
    if lob.hidden_commits is None:  # removed, its lobby ended: what it still had queued
        return raw
    n = len(lob.hidden_commits[lob.my_seat])
    if what == "other_hash":
        return sig(lob, os.urandom(32))
    if what == "junk_leaves":
        return sig(lob, leaves=os.urandom(n))
    if what == "short_leaves":
        return sig(lob, leaves=b"\0" * 32)
    if what == "two_versions":
        lobbies[dst].receive_message(sig(lob, leaves=os.urandom(n)), P2, 0.0, lob.identity.x25519_public_key)
    return None if what == "withhold" else raw


def _seed_lie(lobbies, lob, raw, what):
    if lob.setup is None:
        return raw
    commits = list(LOBBY_DECODERS[MSG_SEED](open_envelope(raw).body).commits)
    if what == "bad_secret":
        return seed(lob, raw, secret=os.urandom(32))
    if what in ("third_digest", "host_digest", "own_digest"):
        other = lobbies[P1 if what == "third_digest" else HOST].identity.public_key
        i = lob.my_seat if what == "own_digest" else [p.public_key for p in lob.setup.players].index(other)
        commits[i] = os.urandom(32)
        return seed(lob, raw, commits=tuple(commits))
    return None if what == "withhold" else raw


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SIG_LIES), st.sampled_from(SIG_LIES), st.sampled_from(SEED_LIES), st.sampled_from(SEED_LIES),
       st.sampled_from((None, 28.0, 29.0, 29.9)))
def test_property_one_hostile_joiner_never_gets_an_honest_seat_blamed_or_removed(sig_h, sig_p1, seed_h, seed_p1,
                                                                                 late):
    """§C2.2 steps 5 and 7 ("nobody has to be trusted"): the hostile joiner P2 sends each of the
    host and P1 its own choice of SETUP_SIG and SEED lies or silence (every re-send alike), up to
    past every deadline. The host never aborts, never removes or bans an honest seat; no honest
    seat ever blames an honest seat; and the honest seats end together: all started with one
    game seed, or all waiting in the same later round (nobody left out, nobody started alone).
    ``late``: P2 sends the host nothing before that time, just before its ``SETUP_TIMEOUT``, then
    its SETUP_SIG and SEED (RV14-C #1: after P1's last re-send). Checked exhaustively (1296 plans,
    3 seats, ``late`` None) and on 800 random 4-seat plans while building (H153)."""
    lobbies = make_lobbies(3, edition=NIENTE)
    plan = {HOST: (sig_h, seed_h), P1: (sig_p1, seed_p1)}
    clock = {"now": 0.0}

    def lie(src, dst, raw):
        if src != P2 or dst not in plan or kind(raw) not in (MSG_SETUP_SIG, MSG_SEED):
            return raw
        if late is not None and dst == HOST and clock["now"] < late:
            return None
        lob = lobbies[P2]
        if kind(raw) == MSG_SETUP_SIG:
            return _sig_lie(lobbies, lob, raw, plan[dst][0], dst)
        return _seed_lie(lobbies, lob, raw, plan[dst][1])
    pump(lobbies, lie=lie)
    if late is not None:
        run_until(lobbies, late, lie, clock)
        p2 = lobbies[P2]
        clock["now"] = late
        for raw in (p2.setup_round.signing.own(p2.my_seat) if p2.setup is not None else ()):
            if (raw := lie(P2, HOST, raw)) is not None:
                lobbies[HOST].receive_message(raw, P2, late, p2.identity.x25519_public_key)
        pump(lobbies, late, lie)
    run_until(lobbies, C.SETUP_TIMEOUT + 15.0, lie, clock)
    host = lobbies[HOST]
    honest_keys = {lobbies[a].identity.public_key for a in (HOST, P1)}
    assert host.phase != ABORTED
    host_events = drain(host)
    assert all(e.name == "p2" for e in host_events if isinstance(e, PlayerRemoved))
    assert honest_keys.isdisjoint(host.admission._banned)
    for a in (HOST, P1):
        evs = host_events if a == HOST else drain(lobbies[a])
        assert all(e.addr == P2 for e in evs if isinstance(e, LobbyPeerMisbehaved))
    host_p1 = (host.phase, lobbies[P1].phase)
    assert (host_p1 == (STARTED, STARTED) and host.game_seed == lobbies[P1].game_seed) or \
        (host_p1 == (WAITING, WAITING) and host.round == lobbies[P1].round >= 1)


def _last_moment(seats, edition, seed_to_host, until=C.SETUP_TIMEOUT + 15.0, mute=False):
    """RV14-C #1: the hostile L = p2 never sends its SETUP_SIG to the other joiners and sends the
    host its SETUP_SIG (and, if ``seed_to_host``, its SEED) only at ``SETUP_TIMEOUT`` - 1 s, after
    the victims' last re-send: the host reveals holding L's envelopes and no victim's SEED.
    ``mute``: from then on the victims hear and say nothing (their network failed)."""
    lobbies = make_lobbies(seats, edition=edition)
    victims = [a for a in lobbies if a not in (HOST, P2)]
    release, held, now = C.SETUP_TIMEOUT - 1.0, [], 0.0

    def lie(src, dst, raw):
        if mute and now >= release and (src in victims or dst in victims):
            return None
        if src != P2 or kind(raw) not in (MSG_SETUP_SIG, MSG_SEED):
            return raw
        if dst in victims and kind(raw) == MSG_SETUP_SIG:
            return None
        if dst == HOST and (now < release or (kind(raw) == MSG_SEED and not seed_to_host)):
            held.append(raw)
            return None
        return raw
    pump(lobbies, 0.0, lie)
    while True:
        timers = [t for lob in lobbies.values() if (t := lob.get_timer()) is not None]
        if not timers or min(timers) > until:
            break
        now = min(timers + ([release] if held and now < release else []))
        if now == release:  # its latest SETUP_SIG (and SEED) to the host
            for raw in [r for r in held if kind(r) == MSG_SETUP_SIG][-1:] + \
                    ([r for r in held if kind(r) == MSG_SEED][-1:] if seed_to_host else []):
                lobbies[HOST].receive_message(raw, P2, now, lobbies[P2].identity.x25519_public_key)
            held.clear()
        for lob in lobbies.values():
            if (t := lob.get_timer()) is not None and t <= now:
                lob.handle_timer(now)
        pump(lobbies, now, lie)
    return lobbies, victims


@pytest.mark.parametrize("seats,edition", [(3, NIENTE), (3, "race"), (4, NIENTE)])
@pytest.mark.parametrize("seed_to_host", [True, False])
def test_a_setup_sig_sent_to_the_host_just_before_its_deadline_gets_no_victim_banned(seats, edition, seed_to_host):
    """§C2.2 step 7, *Late seats* (RV14-C #1): before, the host removed and banned every victim at
    ``SETUP_TIMEOUT`` ('did not confirm') and L kept its seat. Now the host, revealing at its
    deadline, sends each seat whose SEED it lacks and that never had them every SETUP_SIG and
    waits ``LATE_GRACE_S`` once: the victims reveal. L's SEED came: everyone starts with one
    seed; it did not: only L is removed, the honest seats go on together in round 1."""
    lobbies, victims = _last_moment(seats, edition, seed_to_host)
    host = lobbies[HOST]
    removed = [e.name for e in drain(host) if isinstance(e, PlayerRemoved)]
    assert all(lobbies[v].identity.public_key not in host.admission._banned for v in victims), removed
    honest = [host] + [lobbies[v] for v in victims]
    if seed_to_host:
        assert removed == [] and all(lob.phase == STARTED for lob in lobbies.values())
        assert len({lob.game_seed for lob in lobbies.values()}) == 1
    else:
        assert removed == ["p2"] and all(lob.phase == WAITING and lob.round == 1 for lob in honest)


def test_the_host_waits_for_a_late_seat_once_per_round():
    """§C2.2 step 7, *Host*: the wait is once per round and ``LATE_GRACE_S`` long, so L cannot
    stretch a round for ever: victims that still do not reveal (here their network fails when L
    sends its envelopes to the host) are removed at ``SETUP_TIMEOUT`` + ``LATE_GRACE_S``."""
    lobbies, _ = _last_moment(3, NIENTE, True, until=C.SETUP_TIMEOUT + LATE_GRACE_S - 0.01, mute=True)
    host = lobbies[HOST]
    assert host.phase == REVEALING and host.round == 0 and not any(isinstance(e, PlayerRemoved) for e in drain(host))
    lobbies, _ = _last_moment(3, NIENTE, True, until=C.SETUP_TIMEOUT + LATE_GRACE_S, mute=True)
    host = lobbies[HOST]
    assert [e.name for e in drain(host) if isinstance(e, PlayerRemoved)] == ["p1"] and host.round == 1


def test_a_joiner_that_proves_the_host_lied_forwards_the_proof_before_it_aborts():
    """§C2.2 step 7 case (c), the order that stranded a joiner (stop 26's CI, e2e
    ``test_6_niente_other_leaves_for_one_victim_are_caught_at_setup`` under load): the host signs
    other leaves for P1; P2's SEED reaches P1 late, after P2's forward of the host's SETUP_SIG. P1
    then holds two versions signed by the host and aborts; it forwards the host's SETUP_SIG it
    holds to the other joiners first, so P2 holds both versions too and aborts naming the host's
    seat, instead of waiting for a round the host ends (it went back to waiting and timed out)."""
    lobbies = make_lobbies(3, edition=NIENTE)

    def how(lob, raw):
        if kind(raw) == MSG_SETUP_SIG:
            return sig(lob, leaves=os.urandom(len(lob.hidden_commits[lob.my_seat])))
        return raw
    to_p1 = hostile(lobbies, HOST, how, only_to=P1)

    def lie(src, dst, raw):
        if src == P2 and dst == P1 and kind(raw) == MSG_SEED:
            return None  # late: P1 takes P2's forward first
        return to_p1(src, dst, raw)
    pump(lobbies, lie=lie)
    host_seat = lobbies[HOST].my_seat
    for a in (P1, P2):
        evs = drain(lobbies[a])
        assert lobbies[a].phase == ABORTED, (a, lobbies[a].phase)
        assert any(isinstance(e, LobbyAborted) and f"seat {host_seat} signed" in e.reason for e in evs)
    assert lobbies[HOST].phase != STARTED
