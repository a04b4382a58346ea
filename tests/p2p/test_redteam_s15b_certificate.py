"""Red team session 15, second round (H169): a drop-vote certificate (protocol.md §C8.3 'A voter's
promise', 'A seat's own channel' F1, 14d3dcd) against the turn clock's vote (§C8.3 'Own decision
across steps', 41c93be). Tests only.

The clock's vote is a voter's promise: the voter applies the step with the liar's held message
only with a certificate that no drop quorum can exist, i.e. active - Q seats other than itself and
the liar signed a step-(k+1) message over it. A partner of the liar that never votes against it
applies the step and signs k+1: can its message free the liar from the bound?

Hold (classico, 5 seats: Q = 3, N - Q = 2 colluders are within the seat-loss rules' tolerance,
§N8/§C8.3): the liar (seat 1) answers nil at once at its own roll from step 20; its partner (seat
3) runs no turn clock (never votes against it), applies every step with the liar's message and
signs the next. The three honest peers vote at first + OWN_STEPS_PER_TURN: a certificate needs
active - Q = 2 signers besides the voter and the liar, the partner is one, so the voters keep
their promise and the quorum of three drops the liar at that step. The partner, having applied
that step with the liar's message, is overturned (it halts: here no node restarts it, so it is
dropped at the next step); the honest three finish with one final hash, logs verify.
"""

from __future__ import annotations

from p2p.gamelog import LogWriter
from p2p.session_events import SeatDropped
from p2p.session_turn_clock import OWN_STEPS_PER_TURN

from p2p_harness import finish_together, make_lobbies, pump_lobbies
from test_turn_clock import LIAR, OPTS, OwnRollNet

N, PARTNER = 5, 3
HONEST = (0, 2, 4)


def test_c8_3_a_partner_signing_past_the_liars_held_message_does_not_certify_it_out_of_the_bound(tmp_path):
    """See the module docstring. Premise: the partner never votes (its clock's gate always
    passes) and signs step first + OWN_STEPS_PER_TURN + 1 over the liar's message (it halted
    there as overturned)."""
    import engine as RE

    lobbies = make_lobbies(N, edition="classico", options=OPTS)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    paths = [tmp_path / f"{i}.log" for i in range(N)]
    sessions = [lob.start_session(RE, log=LogWriter(p, lob.log_header())) for lob, p in zip(ordered, paths)]
    sessions[PARTNER].votes.clock.gate = lambda k, skipped, vote, may_vote, end=None: True  # never votes
    net = OwnRollNet(RE, sessions)
    net.run(max_time=1e6, max_rounds=5_000_000)
    bound = net.stalled[0] + OWN_STEPS_PER_TURN
    assert net.s[PARTNER].phase == "halted" and net.s[PARTNER].step == bound + 1  # premise
    for i in HONEST:
        drops = [(d.step, d.seat) for d in net.events[i] if isinstance(d, SeatDropped)]
        assert drops[:1] == [(bound, LIAR)], (i, drops)
    finish_together(net, net.s, paths, HONEST, cheaters=None, engine=RE)
