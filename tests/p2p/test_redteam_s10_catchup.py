"""Red team, session 10 (H94): a seat-holder answering a resumed peer's catch-up first, with pages of
its own choosing (protocol.md §C9.1 'pipelined', §C9.2, §C10). Its pages carry its valid
signature; the requester checks the records when it applies them. Scenario and figures:
``redteam_s10_kit.catch_up_with`` (3 seats, the victim resumes ~250 steps behind).

Findings (01:30 UTC):
* Holds: truncated pages (the attacker's genuine records of the first asked step only, every
  request) neither stop nor fork the catch-up; it costs the victim more round trips (16 requests
  instead of 6 for 250 steps), no record is refused.
* BREAK, fixed by H98's 496cdd4 (§C9.1: the pace comes from STEP records, set by applied ones):
  the page's records set the requester's pace (steps per request) before anything in them was
  checked, from all their bytes (``CatchUp.hold``): one genuine STEP record followed by a 39 KB
  junk record of another kind made the pace 1 (251 requests for 250 steps instead of 6); the
  junk was refused silently by the live checks, so the attacker was never named.
"""

from __future__ import annotations

from p2p.gamelog import KIND_COMPLAINT

from redteam_s10_kit import catch_up_with, genuine_first_step


def _padded(a, r) -> list:
    """The first asked step's genuine records, then 39 KB of junk as a COMPLAINT record."""
    return genuine_first_step(a, r) + [(KIND_COMPLAINT, b"\x00" * 39_000)]


def test_truncated_genuine_pages_from_a_seat_neither_stop_nor_fork_a_catch_up(tmp_path):
    """Every request of the victim answered first by the attacker with one step of genuine
    records: the victim catches up, nobody's record is refused, the game ends with one final
    hash on all three peers (§C9.2: a short page leaves a hole that is asked again)."""
    honest = catch_up_with(tmp_path / "honest", None)
    out = catch_up_with(tmp_path / "attacked", genuine_first_step)
    assert honest["resumed"] and out["resumed"]
    assert out["finished"] == 3 and len(out["finals"]) == 1 and out["finals"] == honest["finals"]
    assert not out["misbehaved"]
    assert out["pages"] > honest["pages"]  # the attack's one effect: more, shorter pages


def test_a_padded_page_does_not_set_the_requesters_pace(tmp_path):
    """The attacker answers each request first with the asked step's genuine records padded with
    39 KB of junk of another record kind. The rule (§C9.1: pace = steps that fill ~90 % of a page,
    from the pages received; §C9.2: a lying responder costs a PeerMisbehaved and a repeat): the
    catch-up takes at most 3x the requests of an honest one, or the attacker is named."""
    honest = catch_up_with(tmp_path / "honest", None)
    out = catch_up_with(tmp_path / "attacked", _padded)
    assert out["finished"] == 3 and out["finals"] == honest["finals"]  # it still ends agreed
    assert out["requests"] <= 3 * honest["requests"] or out["misbehaved"], (out["requests"], honest["requests"])
