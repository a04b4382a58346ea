"""A lobby survives seats that do not confirm the setup (protocol.md §C2.2 step 7, issue 10):
at SETUP_TIMEOUT the host removes (and bans) the seats whose SETUP_SIG or SEED is missing, the
honest seats go back to waiting with fresh seed commitments, and the next PROPOSAL is a new
setup. Keyed channels are simulated: each message carries its sender's X25519 key."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p import const as C
from p2p.identity import Identity
from p2p.lobby import (ABORTED, SETUP_HOST_GRACE, SIGNING, STARTED, WAITING, GameStarted, Lobby, LobbyAborted,
                       PlayerRemoved, SetupRestarted)
from p2p.wire import MSG_JOIN, MSG_REJECT, MSG_SEED, MSG_SETUP_SIG, MSG_STATUS, open_envelope

from p2p_harness import CHAIN, addr, drain, make_lobbies

GHOST = addr(2)


def pump(lobbies: dict, now: float, mute: dict | None = None) -> None:
    """Deliver until quiet over keyed channels; ``mute[src]``: message types ``src`` never sends
    (a ghost); a lobby not in ``lobbies`` (removed) receives nothing."""
    mute = mute or {}
    while True:
        batch = [(src, dst, raw) for src, lob in lobbies.items() for dst, raw in lob.messages_to_send()]
        if not batch:
            return
        for src, dst, raw in batch:
            if open_envelope(raw).mtype in mute.get(src, ()) or tuple(dst) not in lobbies:
                continue
            lobbies[tuple(dst)].receive_message(raw, src, now, lobbies[src].identity.x25519_public_key)


def run_timers(lobbies: dict, until: float, mute: dict | None = None) -> float:
    """Fire every lobby's timers in time order up to ``until``, pumping after each."""
    now = 0.0
    while True:
        timers = [t for lob in lobbies.values() if (t := lob.get_timer()) is not None]
        if not timers or min(timers) > until:
            return now
        now = min(timers)
        for lob in lobbies.values():
            if lob.get_timer() is not None and lob.get_timer() <= now:
                lob.handle_timer(now)
        pump(lobbies, now, mute)


def test_a_seat_that_never_signs_is_removed_and_the_honest_seats_wait_again():
    lobbies = make_lobbies(3)
    mute = {GHOST: (MSG_SETUP_SIG, MSG_SEED)}
    pump(lobbies, 0.0, mute)
    host, honest = lobbies[addr(0)], lobbies[addr(1)]
    assert host.phase == honest.phase == SIGNING
    old_commit = honest.me.seed_commit
    run_timers(lobbies, C.SETUP_TIMEOUT, mute)
    assert host.phase == honest.phase == WAITING
    assert host.round == honest.round == 1
    assert honest.me.seed_commit != old_commit  # fresh seeds in the new round
    host_events = drain(host)
    assert [e.name for e in host_events if isinstance(e, PlayerRemoved)] == ["p2"]
    assert any(isinstance(e, SetupRestarted) for e in host_events)
    assert host.stats["removed"] == 1
    assert {p.name for p, _ in host.members()} == {"p0", "p1"}  # p1 sent its fresh entry
    assert host.get_timer() is None  # nobody stale left to wait for
    ghost = lobbies[GHOST]
    assert ghost.phase == ABORTED  # the REJECT reached it: removed
    assert any(isinstance(e, LobbyAborted) and "did not confirm" in e.reason for e in drain(ghost))
    # the ghost's key is banned: its JOIN is refused
    del lobbies[GHOST]
    again = Lobby.join(ghost.identity, endpoint=("127.0.0.3", 40002),
                       host_addr=addr(0), game_id=host.game_id, name="p2", chain_length=CHAIN)
    (_, raw), = again.messages_to_send()
    host.receive_message(raw, ("127.0.0.3", 40002), 40.0, ghost.identity.x25519_public_key)
    (dst, ans), = host.messages_to_send()
    assert open_envelope(ans).mtype == MSG_REJECT and host.stats["banned"] == 1
    # a new honest player takes the seat: the game starts, a fresh setup signed by all three
    late = Identity.from_seed(b"late")
    lobbies[addr(5)] = Lobby.join(late, endpoint=addr(5),
                                  host_addr=addr(0), game_id=host.game_id, name="p5", chain_length=CHAIN)
    pump(lobbies, 41.0)
    assert all(lob.phase == STARTED for lob in lobbies.values())
    assert len({(lob.setup_bytes, lob.game_seed) for lob in lobbies.values()}) == 1
    assert honest.me in honest.setup.players and host.me in host.setup.players
    assert any(isinstance(e, GameStarted) for e in drain(honest))


def test_a_seat_that_signs_then_never_reveals_gains_nothing_from_the_seeds_it_saw():
    lobbies = make_lobbies(3)
    mute = {GHOST: (MSG_SEED,)}
    pump(lobbies, 0.0, mute)
    host, honest = lobbies[addr(0)], lobbies[addr(1)]
    assert host.phase == "revealing"
    # The host reveals last (§C2.2 step 5, H153): the ghost saw the honest joiner's seed, not the host's.
    assert host.signing.missing(3, True) == sorted({host.my_seat, host.endpoints.index(GHOST)})
    seen = {honest.signing.secret(honest.my_seat)}
    run_timers(lobbies, C.SETUP_TIMEOUT, mute)
    assert host.phase == honest.phase == WAITING
    lobbies.pop(GHOST)
    lobbies[addr(6)] = Lobby.join(Identity.from_seed(b"new"), endpoint=addr(6), host_addr=addr(0), game_id=host.game_id,
                                  name="p6", chain_length=CHAIN)
    pump(lobbies, 40.0)
    assert host.phase == honest.phase == STARTED
    # nobody's old reveal is reused: what the vanished seat saw says nothing about the new seed
    assert not seen & {host.signing.secret(i) for i in range(3)}


def test_late_setup_sigs_of_the_old_round_are_dropped_not_a_disagreement():
    lobbies = make_lobbies(3)
    mute = {GHOST: (MSG_SETUP_SIG, MSG_SEED)}
    pump(lobbies, 0.0, mute)
    honest = lobbies[addr(1)]
    old = honest.signing.own(honest.my_seat)  # its round-0 SETUP_SIG
    host = lobbies[addr(0)]
    run_timers(lobbies, C.SETUP_TIMEOUT, mute)
    ghost = lobbies.pop(GHOST).identity
    # a newcomer that takes the ghost's seat number, so the old SETUP_SIG names the same seat
    want = sorted([lob.identity.public_key for lob in lobbies.values()] + [ghost.public_key]).index(
        honest.identity.public_key)
    newcomer = next(i for k in range(200) if (i := Identity.from_seed(b"new%d" % k)) and sorted(
        [lob.identity.public_key for lob in lobbies.values()] + [i.public_key]).index(honest.identity.public_key) == want)
    lobbies[addr(6)] = Lobby.join(newcomer, endpoint=addr(6),
                                  host_addr=addr(0), game_id=host.game_id, name="p6", chain_length=CHAIN)
    for _, raw in lobbies[addr(6)].messages_to_send():
        host.receive_message(raw, addr(6), 40.0, lobbies[addr(6)].identity.x25519_public_key)
    assert host.phase == SIGNING
    before = host.stats.get("old_round", 0)  # late re-sends of round 0 may have come already
    host.receive_message(old[0], addr(1), 40.0, honest.identity.x25519_public_key)
    assert host.phase == SIGNING and host.stats["old_round"] == before + 1


def test_a_joiner_aborts_only_when_the_host_is_silent():
    # the host never says anything after its PROPOSAL: the joiner waits past SETUP_TIMEOUT
    lobbies = make_lobbies(3)
    pump(lobbies, 0.0, {GHOST: (MSG_SETUP_SIG, MSG_SEED)})
    joiner = lobbies[addr(1)]
    joiner.handle_timer(C.SETUP_TIMEOUT + 0.5)
    assert joiner.phase == SIGNING  # the host decides first
    joiner.handle_timer(C.SETUP_TIMEOUT + SETUP_HOST_GRACE)
    assert joiner.phase == ABORTED
    assert any(isinstance(e, LobbyAborted) and "timed out" in e.reason for e in drain(joiner))


def test_a_replayed_status_or_one_over_a_plain_channel_does_not_end_the_signing_phase():
    lobbies = make_lobbies(3)
    for src, lob in lobbies.items():
        for dst, raw in lob.messages_to_send():
            lobbies[tuple(dst)].receive_message(raw, src, 0.0, lob.identity.x25519_public_key)
    host = lobbies[addr(0)]
    joiner = lobbies[addr(1)]
    statuses = []
    for dst, raw in host.messages_to_send():
        if open_envelope(raw).mtype == MSG_STATUS and tuple(dst) == addr(1):
            statuses.append(raw)  # STATUS 2/3 and 3/3, as p1 got them before the PROPOSAL
        lobbies[tuple(dst)].receive_message(raw, addr(0), 0.0, host.identity.x25519_public_key)
    pump(lobbies, 0.0, {GHOST: (MSG_SETUP_SIG, MSG_SEED)})
    assert joiner.phase == SIGNING
    for raw in statuses:
        joiner.receive_message(raw, addr(0), 1.0, None)  # a plain channel: not the host's word
    assert joiner.phase == SIGNING and joiner.stats["wrong_phase"] >= 1


def test_one_member_per_endpoint_and_a_join_comes_from_the_endpoint_it_signs():
    """§C2.2 step 2 (version 6, replaces the per-address cap of unconfirmed members): a JOIN whose
    signed endpoint is not the datagram's source is dropped (``endpoint_mismatch``, no answer),
    and a JOIN naming the endpoint another member holds is dropped (``endpoint_taken``, no answer:
    it may be spoofed from there); other ports of one machine are other endpoints."""
    host = Lobby.host(Identity.from_seed(b"cap-host"), edition="race", seats=8, name="h", endpoint=addr(0),
                      chain_length=CHAIN)
    src = ("127.0.0.9", 5000)
    for k in range(3):
        g = Identity.from_seed(b"cap%d" % k)
        j = Lobby.join(g, endpoint=src, host_addr=addr(0), game_id=host.game_id, name="g", chain_length=CHAIN)
        host.receive_message(j.messages_to_send()[0][1], src, 0.0, g.x25519_public_key)
    assert len(host.members()) == 2 and host.stats["endpoint_taken"] == 2
    host.messages_to_send()
    g = Identity.from_seed(b"elsewhere")
    j = Lobby.join(g, endpoint=("127.0.0.9", 5001), host_addr=addr(0), game_id=host.game_id, name="g",
                   chain_length=CHAIN)
    host.receive_message(j.messages_to_send()[0][1], ("127.0.0.9", 5002), 0.0, None)
    assert host.stats["endpoint_mismatch"] == 1 and len(host.members()) == 2 and host.messages_to_send() == []
    host.receive_message(j.admission.join_msg(), ("127.0.0.9", 5001), 0.0, None)  # from its own endpoint
    for k in range(3):  # other ports of the same machine (tests, several players) are other endpoints
        g = Identity.from_seed(b"port%d" % k)
        at = ("127.0.0.9", 6000 + k)
        j = Lobby.join(g, endpoint=at, host_addr=addr(0), game_id=host.game_id, name="g", chain_length=CHAIN)
        host.receive_message(j.messages_to_send()[0][1], at, 0.0, g.x25519_public_key)
    assert len(host.members()) == 6


def test_a_stale_member_that_never_sends_its_fresh_entry_is_removed():
    lobbies = make_lobbies(3)
    mute = {GHOST: (MSG_SETUP_SIG, MSG_SEED)}
    pump(lobbies, 0.0, mute)
    host = lobbies[addr(0)]
    mute[addr(1)] = (MSG_JOIN,)  # p1 then never sends its fresh entry
    run_timers(lobbies, C.SETUP_TIMEOUT, mute)
    assert host.phase == WAITING and host.get_timer() == C.SETUP_TIMEOUT + C.JOIN_TIMEOUT
    host.handle_timer(C.SETUP_TIMEOUT + C.JOIN_TIMEOUT)
    assert [p.name for p, _ in host.members()] == ["p0"] and host.phase == WAITING
    assert host.stats["removed"] == 2 and host.get_timer() is None


def test_the_hosts_advert_opens_again_when_a_round_is_given_up():
    """p2p/node_lobby.py: SetupProposed put the advert to st=running; SetupRestarted puts it back
    to st=lobby, so that players (and bots) can find the free seats."""
    from types import SimpleNamespace

    from p2p.ad_record import LOBBY, RUNNING
    from p2p.node_lobby import NodeLobby

    updates: list[dict] = []
    endpoint = SimpleNamespace(pin=lambda *a: None, trust=lambda *a: None, accept_plain=True)
    node = SimpleNamespace(cfg=SimpleNamespace(role="host", observer=None),
                           link=SimpleNamespace(endpoint=endpoint, send=lambda *a: None))
    nl = NodeLobby(node)
    nl.ad_updates = SimpleNamespace(update=lambda **kw: updates.append(kw))
    lobbies = make_lobbies(2)
    nl.lobby = host = lobbies[addr(0)]
    ghost = lobbies[addr(1)]
    for dst, raw in ghost.messages_to_send():
        host.receive_message(raw, addr(1), 0.0, ghost.identity.x25519_public_key)
    assert nl.pump() and updates[-1]["state"] == RUNNING
    host.handle_timer(C.SETUP_TIMEOUT)
    assert nl.pump() and host.phase == WAITING
    assert any(u.get("state") == LOBBY for u in updates) and updates[-1] == {"seats_taken": 1, "players": ("p0",)}


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(["honest", "never_signs", "never_reveals"]), min_size=1, max_size=4)
       .filter(lambda kinds: any(k != "honest" for k in kinds)))
def test_whatever_the_ghosts_do_the_honest_seats_never_lose_the_lobby(kinds):
    """Property (§C2.2 step 7): joiners that never sign or never reveal, in any mix with honest
    ones, are removed (a ghost that signed goes back to waiting with the others and is removed in
    the next round it does not reveal); no honest seat ever aborts; with fresh players taking
    the free seats, every honest seat starts the same game (one setup, one seed) without a ghost."""
    n = len(kinds) + 1
    lobbies = make_lobbies(n)
    mute = {addr(i + 1): {"never_signs": (MSG_SETUP_SIG, MSG_SEED), "never_reveals": (MSG_SEED,)}.get(k, ())
            for i, k in enumerate(kinds)}
    honest = [addr(0)] + [addr(i + 1) for i, k in enumerate(kinds) if k == "honest"]
    ghosts = {lobbies[addr(i + 1)].identity.public_key for i, k in enumerate(kinds) if k != "honest"}
    host = lobbies[addr(0)]
    now, fresh = 0.0, 0
    for _ in range(len(kinds) + 1):
        pump(lobbies, now, mute)
        if all(lobbies[a].phase == STARTED for a in honest):
            break
        now = run_timers(lobbies, now + C.SETUP_TIMEOUT + C.JOIN_TIMEOUT, mute)
        assert all(lobbies[a].phase != ABORTED for a in honest)
        for _k in range(n - len(host.members())):  # fresh players take the free seats
            lobbies[addr(20 + fresh)] = Lobby.join(Identity.from_seed(b"fresh%d" % fresh), endpoint=addr(20 + fresh),
                                                   host_addr=addr(0),
                                                   game_id=host.game_id, name=f"f{fresh}", chain_length=CHAIN)
            honest.append(addr(20 + fresh))
            fresh += 1
    assert all(lobbies[a].phase == STARTED for a in honest)
    assert len({(lobbies[a].setup_bytes, lobbies[a].game_seed) for a in honest}) == 1
    assert not ghosts & {p.public_key for p in host.setup.players}
