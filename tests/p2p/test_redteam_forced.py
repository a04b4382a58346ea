"""Red team of forced reveals (protocol version 4, protocol.md §C3.8; issue 14): at a plain chance
step a seat's forced body ``[gid, k, seat, prev_hash, prev_digest, reveal]`` is held, logged,
served and replayed WHATEVER its signature. Each test is one attack and asserts the safe outcome
the spec promises (/work/notes/forced_design.md): nothing the table applies changes, no honest
peer forks, halts or is framed, every honest log verifies (``verify_log``: also what a spectator
runs, ui/watch), a restart and a catch-up pass the griefer's unsigned bodies, and a proof never
rests on an envelope whose signature was not checked (§C8.8).

The attacker is a lying seat (its own setup keys, so it can sign anything and send garbage
signatures under a valid channel MAC: ``KeyedNet`` of test_redteam_auth.py) or a relayer who
learned a reveal. In memory: fake engine (a dice race: a chance step, then a decision step, in
turn), virtual clock. With seat loss on, an escrow round comes before the first chance step;
the chance steps after it are plain."""

from __future__ import annotations

from functools import partial

import pytest
from hypothesis import strategies as st

import fake_engine as E
from p2p import const as C
from p2p.gamelog import KIND_STEP, STEP_RECORD
from p2p.lockstep import CheaterProven, Equivocation, SeatDropped
from p2p.verify import verify_log
from p2p.wire import MSG_STEP, seal

from p2p_harness import random_legal
from redteam_auth_kit import CATCHUP_RESP_TAG, STEP_TAG, KeyedNet, garbled, step_of
from test_resilience import crash_and_restart, finals, logged_game
from redteam_forced_kit import (DROP, NO_DROP, forced_looking, garble_forced, honest_logs_verify, records_of, with_acks, ForcedSteps, page_of, second_body_game)


@pytest.mark.parametrize("options", [DROP, NO_DROP], ids=["seat-loss", "no-seat-loss"])
def test_a_griefer_garbling_every_forced_body_changes_nothing(tmp_path, options):
    """Seat 3 sends every forced body with a garbage signature (its other messages are signed).
    Its forced bodies are the bytes it must send, so every honest peer holds them (counted
    ``forced``), nobody is dropped or proven, the four finish one game, and every honest log —
    holding those unsigned bodies — verifies complete (as a spectator replays it)."""
    sessions, paths, _, _ = logged_game(tmp_path, 4, options)
    g = 3
    net = KeyedNet(list(sessions), random_legal(E, seed=3), lie=garble_forced(g))
    net.run(max_time=300.0)
    assert net.lies
    honest_logs_verify(net, sessions, paths, range(3))
    assert len({finals(net)[i][0].final_hash for i in range(4)}) == 1
    for i in range(3):
        assert sessions[i].stats["forced"] > 0
        assert not [e for e in net.events[i] if isinstance(e, (SeatDropped, CheaterProven))]


def test_a_restart_and_a_catchup_pass_the_griefers_unsigned_forced_bodies(tmp_path):
    """As above; honest seat 1 crashes at step 12, its log lost every record from step 5 on (a
    damaged disk), and the griefer never serves a catch-up page: seat 1 resumes from what is
    left and catches up from the other honest peers' pages, whose records hold the griefer's
    unsigned forced bodies (§C3.8: taken in records as live). Under §C3.7's deferred checks this
    was the hole that sank them; here the body itself is the proof."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, DROP)
    g = 3

    def lose_from_step_5(path):
        cut = next(r.offset for r in records_of(path) if r.kind == KIND_STEP
                   and STEP_RECORD.decode(r.payload).step >= 5)
        with open(path, "r+b") as f:
            f.truncate(cut)

    net = KeyedNet(list(sessions), random_legal(E, seed=5), lie=garble_forced(g))
    net.drop = lambda src, dst, raw: src == g and raw[:2] == CATCHUP_RESP_TAG
    hook, st = crash_and_restart(net, sessions, paths, secrets, seat=1, crash_step=12, down_for=1.0,
                                 mutate_log=lose_from_step_5)
    net.run(max_time=300.0, hook=hook)
    assert st["report"] is not None and st["report"].damage is None and st["report"].steps <= 5
    overs = finals(net)
    assert all(len(overs[i]) == 1 for i in range(4)), net.describe()
    assert len({overs[i][0].final_hash for i in range(4)}) == 1
    for i in range(3):
        assert not [e for e in net.events[i] if isinstance(e, (SeatDropped, CheaterProven))]
    net.s[1].log.close()
    rep = verify_log(paths[1], engine=E)
    assert rep.ok and rep.complete, rep.error


@pytest.mark.parametrize("options", [NO_DROP, DROP], ids=["no-seat-loss", "seat-loss"])
@pytest.mark.parametrize("how", ["page", "live"])
def test_a_signed_second_body_beside_an_unchecked_forced_one_proves_nothing(tmp_path, options, how):
    """Seat 3 garbles its forced bodies (held unchecked everywhere). Once victim 0 applied a plain
    chance step k >= 6, seat 3 shows it a SIGNED body of step k over the same history that adds
    an escrow ack: in its own catch-up page (§C3.4 'Second version in a record', ``cross_check``)
    or live, a late second message. Two versions, but the one held is unsigned: no evidence
    (§C8.8). Safe: no COMPLAINT, no CheaterProven, no Equivocation halt (without seat loss a
    proof halts the game: a one-datagram veto), one final hash, every honest log verifies
    naming nobody. Before H72/H73's checks both paths proved seat 3 with the unsigned envelope."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, options)
    net, done = second_body_game(sessions, ForcedSteps(3), page=how == "page")
    assert done, net.describe()
    for i in range(3):
        assert not [e for e in net.events[i] if isinstance(e, (CheaterProven, SeatDropped))], i
        assert not isinstance(sessions[i].halt_reason, Equivocation)
        assert sessions[i].stats["complaints"] == 0
    honest_logs_verify(net, sessions, paths, range(3))


def test_a_signed_second_body_beside_a_signed_forced_one_still_proves_equivocation(tmp_path):
    """Control for the test above: seat 3's forced bodies are validly signed, so the signed
    second body of the same step over the same history is a real equivocation (§C8.8 kind 1):
    proven, seat 3 voted out, the honest peers finish one game naming it."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, DROP)
    g, v = 3, 0
    net, done = second_body_game(sessions, ForcedSteps(g, garble=False), page=False)
    assert done
    assert any(isinstance(e, CheaterProven) and e.seat == g for e in net.events[v])
    honest_logs_verify(net, sessions, paths, range(3), cheaters=[g])


@pytest.mark.parametrize("how", ["page", "live"])
def test_a_signed_non_forced_body_is_refused_at_our_plain_chance_step(tmp_path, how):
    """At a plain chance step k >= 6 seat 3 sends victim 0 not its forced body but ITS signed
    body with an escrow ack: live, or in a page (its own, signed) whose record of step k holds it
    beside the other seats' messages as victim 0 holds them. §C3.8: refused live and in records
    alike (``not_forced``), so the victim
    never applies a body the others did not (a fork: another digest of step k, acks in its
    ledger only). It gets seat 3's forced body from the others' pages and all finish one game."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, DROP)
    g, v = 3, 0
    state: dict = {"k": None, "pushed": False}

    def drop(src, dst, raw):
        # seat 3's forced body of step k (its first plain chance step >= 6) never reaches the
        # victim live (nor its re-sends)
        if src != g or raw[:2] != STEP_TAG:
            return False
        b = step_of(raw)
        if state["k"] is None and b.step >= 6 and forced_looking(raw):
            state["k"], state["raw"] = b.step, raw
        return dst == v and b.step == state["k"]

    net = KeyedNet(list(sessions), random_legal(E, seed=3))
    net.drop = drop

    def hook(net):
        s = net.s[v]
        k = state["k"]
        if state["pushed"] or k is None or s.phase != "running" or s.step != k:
            return None
        if any(s.steps.held(k, i) is None for i in range(3) if i != v):
            return None
        second = with_acks(sessions[g].identity, state["raw"])
        s.receive_message(page_of(sessions[g], s, k, second) if how == "page" else second, net.now)
        state["pushed"] = True
        assert s.steps.held(k, g) is None or s.steps.held(k, g).body.acks == ()
        return None

    net.run(max_time=300.0, hook=hook)
    assert state["pushed"], net.describe()
    for i in range(3):
        assert not [e for e in net.events[i] if isinstance(e, SeatDropped)], i
    honest_logs_verify(net, sessions, paths, range(3))


# -- A4: a forced-looking body where no body is forced -----------------------------------------

def test_a_forced_looking_body_at_an_escrow_round_or_decision_step_needs_its_signature(tmp_path):
    """Up to step 12, every STEP seat 3 sends victim 0 at a step that is NOT a plain chance step
    (the escrow round before the first chance step, §C8.2; the decision steps) is replaced by a
    forced-looking body: 6 fields, its real next reveal (hashes to its last one), a garbage
    signature. Only a plain chance step takes a body unchecked (§C3.8): the victim drops each
    one (``bad_signature``), gets seat 3's signed messages from the others' records, and finishes
    the same game; its log verifies (a held unsigned body there would fail ``verify``, or fork
    the victim: a reveal at an escrow round or a decision step is ignored, but it is in the digest)."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, DROP)
    g, v = 3, 0
    liar = sessions[g]

    def lie(src, dst, raw):
        if src != g or dst != v or forced_looking(raw):
            return None
        b = step_of(raw)
        if b.step > 12:
            return None
        reveal = liar.own.chain.reveal_at(liar.chance_count + 1)
        return garbled(seal(liar.identity, MSG_STEP, [b.game_id, b.step, g, b.prev_hash, b.prev_digest, reveal]))

    net = KeyedNet(list(sessions), random_legal(E, seed=3), lie=lie)
    net.run(max_time=300.0)
    assert net.lies
    assert sessions[v].stats["bad_signature"] >= len(net.lies) > 0
    for i in range(3):
        assert not [e for e in net.events[i] if isinstance(e, (SeatDropped, CheaterProven))], i
    honest_logs_verify(net, sessions, paths, range(3))


# -- A5 (R1): a griefer's unsigned forced bodies can never strand a voter on their own channel -----

class ViaNet(KeyedNet):
    """``KeyedNet`` that also tells the receiving session which keyed channel brought each
    message (``via``: the sender seat's X25519 setup key), as the node does from the channel
    that checked the datagram's MAC (``channel_auth.Delivered.via``). A relay (a forward, a page)
    goes out on the relayer's own channel: its ``via`` is the relayer's key."""

    def channel(self, src, dst):
        """The seat whose own channel brings ``src``'s messages to seat ``dst`` (None: unknown)."""
        return src

    def send_to(self, src, dst, raw):
        via = self.channel(src, self.s.index(dst))
        key = None if via is None else dst.setup.players[via].x25519_key
        dst.receive_message = partial(type(dst).receive_message, dst, via=key)  # KeyedNet's call, with via
        try:
            super().send_to(src, dst, raw)
        finally:
            del dst.receive_message


def r1_game(tmp_path, lie, withhold=None, net_class=None, hook=None):
    """H75's R1 scene: 3 seats {V=0, t=1, g=2}, seat loss on (Q = 2), ``ViaNet``; g lies by
    ``lie`` and serves no catch-up page. At a decision step k >= 6, t is cut off from V only (a
    glitch, t honest) until V votes t out at k (§C8.3); then the link heals. ``withhold(net, k,
    src, dst, raw)``: True drops that message too (R1': g keeps its later messages from V).
    ``net_class``: another ``ViaNet``; ``hook(net, st, sessions, paths, secrets)``: run every round
    (``st``: {"k", "voted"}; may return a wake-up time). Returns (net, sessions, paths, k) after
    200 s of virtual time."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 3, DROP)
    v, t, g = 0, 1, 2
    st: dict = {"k": None, "voted": False}
    net = (net_class or ViaNet)(list(sessions), random_legal(E, seed=3), lie=lie)

    def drop(src, dst, raw):
        s = net.s[v]
        if src == g and raw[:2] == CATCHUP_RESP_TAG:
            return True  # the griefer serves no page
        if withhold is not None and st["k"] is not None and withhold(net, st["k"], src, dst, raw):
            return True
        if s is None:
            return True  # V is down (a restart)
        if st["k"] is None and s.phase == "running" and s.step >= 6 and not s.own.pending.chance:
            st["k"] = s.step
        if st["k"] is None or st["voted"]:
            return False
        if s.seats.has_voted(st["k"], t):
            st["voted"] = True
            return False
        return src == t and dst == v

    net.drop = drop
    net.run(max_time=200.0, hook=None if hook is None else lambda n: hook(n, st, sessions, paths, secrets))
    assert st["voted"], net.describe()
    return net, sessions, paths, st["k"]


def test_a_griefer_cannot_strand_an_honest_voter_without_a_certificate(tmp_path):
    """R1 (H75), closed by F1 (§C8.3 'A voter's promise'; §C3.8 'not claimed'). In ``r1_game``
    g garbles every forced body. g and t applied k, so V must apply k with a certificate
    (``SessionVotes.certified``: active - Q = 1 seat other than V and t over digest(k)). That
    seat is g, and k+1 is a plain chance step: its forced body carries a garbage signature,
    dropped on receipt at V (step k+1 messages stay verified) and when t relays it. Before F1, V
    stayed at k while g and t voted it out at k+1 (in version 3 t's page relayed g's signed
    message). With F1, g's step-(k+1) message reaching V on g's own keyed channel counts by its
    prev digest whatever its signature: V applies k. Safe outcome: nobody is dropped, the three
    finish one game, the honest logs verify, and V holds no message of g it did not verify."""
    net, sessions, paths, k = r1_game(tmp_path, garble_forced(2))
    for i in range(3):
        assert not [e for e in net.events[i] if isinstance(e, SeatDropped)], (i, net.describe())
    assert sessions[0].stats["bad_signature"] > 0
    honest_logs_verify(net, sessions, paths, range(2))


def _silent_to_v_at_k(net, k, src, dst, raw):
    """R1': g sends V nothing while V is at k (its k+1 messages reach t only; V could get them
    only relayed, on t's channel, where a bad signature attests nothing)."""
    return src == 2 and dst == 0 and net.s[0] is not None and net.s[0].step == k


def _silent_after_k(net, k, src, dst, raw):
    """The version-5 twin of R1': g signs everything but sends nothing of a step > k to anyone,
    and nothing to V while V is at k."""
    return src == 2 and (dst == 0 and net.s[0].step == k or raw[:2] == STEP_TAG and step_of(raw).step > k)


@pytest.mark.xfail(strict=True, reason="accepted limit, protocol.md §C3.8 'not claimed' (R1', bound Q - 1 liars): "
                   "V needs active - Q signers among the active - 2 other seats, so Q - 1 liars (one at 3 seats) "
                   "that keep their step-(k+1) messages from V strand it; a relayed copy with a bad signature is "
                   "no attestation (F1 counts a seat's own channel only)")
@pytest.mark.parametrize("how", ["garbled-withheld", "silent-v5-control"])
def test_q_minus_one_liars_withholding_k_plus_1_strand_a_voter(tmp_path, how):
    """R1' (docs/next/nil-inputs.md section 3): ``r1_game`` with g's later messages kept from V
    while V is at k. 'garbled-withheld': g garbles its forced bodies and sends them to t only;
    'silent-v5-control': g signs everything but goes silent after k (version 5 strands V the
    same way: not something F1 or forced bodies create). At 3 seats Q = 2: one liar among the
    one other seat is Q - 1. Safe outcome (not reached): nobody is dropped."""
    lie = garble_forced(2) if how == "garbled-withheld" else None
    withhold = _silent_to_v_at_k if how == "garbled-withheld" else _silent_after_k
    net, sessions, paths, k = r1_game(tmp_path, lie, withhold)
    for i in range(2):
        assert not [e for e in net.events[i] if isinstance(e, SeatDropped) and e.seat in (0, 1)], \
            (i, net.describe())


# -- A6: re-seats (§C8.9) and forced bodies ---------------------------------------------------

def test_a_reseated_griefer_garbling_its_new_chains_forced_bodies_changes_nothing(tmp_path):
    """Seat 3 garbles every forced body, is dropped (crash), returns as a spectator and is
    re-seated with a fresh chain (§C8.9): its previous reveal is now the RESEAT's chain head,
    at every peer and in ``verify`` alike, so its unsigned forced bodies of the new chain are
    taken as before; the re-seat request itself waits out the plain chance steps (never in a
    forced body) and is decided at the same step everywhere. Every peer, the returning one
    included, finishes one game and every log verifies complete."""
    from p2p.lockstep import SeatReturned
    from test_reseat_session import _returning

    opts = {"target": 70, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, opts)
    g = 3
    net = KeyedNet(list(sessions), random_legal(E, seed=11), lie=garble_forced(g))
    hook, st = _returning(sessions, paths, secrets, seat=g, crash_step=6)
    net.run(max_time=1e5, hook=hook)
    assert st["asked"]
    back = [[e for e in evs if isinstance(e, SeatReturned)] for evs in net.events]
    assert all(len(b) == 1 and b[0].seat == g for b in back) and len({b[0].step for b in back}) == 1, back
    garbled_after = [raw for src, dst, raw in net.lies if step_of(raw).step > back[0][0].step]
    assert garbled_after, "the re-seated seat sent no forced body after its return"
    overs = finals(net)
    assert all(len(o) == 1 for o in overs), net.describe()
    assert len({o[0].final_hash for o in overs}) == 1
    for p in paths:
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, (p, rep.error)


# -- A7: a drop at a plain chance step, beside a griefer ---------------------------------------

def test_a_drop_at_a_plain_chance_step_beside_a_griefer(tmp_path):
    """Seat 2 falls silent for good at the first plain chance step k >= 8 (nothing of it reaches
    anyone from then on) while seat 3 garbles every forced body. The others vote seat 2 out AT
    k, a plain chance step decided before the drop (§C8.2: the escrow round is decided when the
    step begins, by every peer and ``verify`` alike): seat 3's unsigned forced body of k stays
    held, seat 2's reveal comes from its recombined escrow, the new epoch's acks ride the next
    step that is not a plain chance step. The three finish one game and their logs verify."""
    sessions, paths, _, _ = logged_game(tmp_path, 4, DROP)
    dead, g = 2, 3
    st: dict = {"k": None}
    net = KeyedNet(list(sessions), random_legal(E, seed=7), lie=garble_forced(g))

    def drop(src, dst, raw):
        s = net.s[0]
        if st["k"] is None and s.step >= 8 and s.own.plain_chance():
            st["k"] = s.step
        return st["k"] is not None and src == dead

    net.drop = drop
    net.run(max_time=300.0)
    assert st["k"] is not None
    drops = [e for e in net.events[0] if isinstance(e, SeatDropped)]
    assert [(e.seat, e.step) for e in drops] == [(dead, st["k"])], (drops, st)
    honest_logs_verify(net, sessions, paths, [0, 1, 3])


# -- A8: a real cheat at a plain chance step, beside a griefer's unsigned bodies ----------------

def test_a_wrong_reveal_is_still_proven_beside_a_griefers_unsigned_forced_bodies(tmp_path):
    """Seat 3 signs a wrong reveal at its first chance step >= 6 (to everyone, §C8.8 kind 2) while
    seat 2 garbles every forced body, so the step's other held messages include an unchecked
    one. The proof rests only on seat 3's signed message: every honest peer proves seat 3 (not
    seat 2), votes it out, and the game goes on; every honest log verifies naming seat 3 only."""
    from p2p_harness import BadReveal

    sessions, paths, _, _ = logged_game(tmp_path, 4, DROP)
    cheat = BadReveal(sessions[3].identity, 3, from_step=6)
    net = KeyedNet(list(sessions), random_legal(E, seed=3), lie=garble_forced(2), drop=cheat)
    cheat.net = net
    net.run(max_time=300.0)
    assert cheat.step is not None and net.lies
    for i in range(3):
        assert {e.seat for e in net.events[i] if isinstance(e, CheaterProven)} == {3}, i
        assert {e.seat for e in net.events[i] if isinstance(e, SeatDropped)} == {3}, i
    honest_logs_verify(net, sessions, paths, range(3), cheaters=[3])
