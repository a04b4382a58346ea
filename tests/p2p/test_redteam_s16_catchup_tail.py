"""RV16-G's variants of the catch-up tail lie (tests/p2p/test_redteam_s15_catchup.py; protocol.md
§C3.4 'Two versions applied', 'its word alone'; §C9.2; §C8.9). Each is still ONE liar (seat 1).

* F1 (repeat): the liar serves its second version again, at the tail of every page covering k,
  after the victim rolled back. Before H182 the re-sent record went through ``ingest_step_record``'s
  current-step path, where ``kept_version`` (not 'its word alone') decided: the victim held the lie
  again and stalled for good. Now a responder's own slot at its page's tail never replaces a version
  we hold (``word_of != i``).
* F2 (after = 3): the lie is followed in its page by 3 genuine records. Before H182 only the
  page's last record SENT was noted as resting on its responder's word; now the last one APPLIED.
* F3 (crash): the victim's process restarts from its log right after applying the lie's page.
* F4 (returning player, after = 3): the table itself splits (predates H179).
"""

from __future__ import annotations

import pytest

from test_redteam_s15_catchup import assert_converged, assert_returned, resumed_catch_up, returning_catch_up

BOTH = pytest.mark.parametrize("lie_kept", [False, True], ids=["table_version_kept", "lie_kept"])


@BOTH
def test_a_liar_serving_its_tail_lie_again_after_the_roll_back_no_longer_holds_the_victim(tmp_path, lie_kept):
    """RV16-G F1 [HIGH]: the victim rolls back to the table's version of k, asks again from k, and
    the liar's page is again first with the lie as its last record (k is now the victim's current
    step). Measured before the fix (lie kept): restarts [(2, k, True)], steps [301, 301, k] at
    t = 120 s, the victim holding the lie. Now it keeps the adopted version and finishes."""
    assert_converged(*resumed_catch_up(tmp_path, lie_kept, repeat=True))


@BOTH
def test_a_lie_followed_by_genuine_records_in_its_page_still_rests_on_its_word(tmp_path, lie_kept):
    """RV16-G F2 [HIGH]: the lie at k and then the liar's genuine records of k+1..k+3 in the same
    page. The record of k+1 (honest messages signed over the table's digest of k) is refused, the
    page stops. Before H182 ``word`` was noted only for the page's last record sent: the lie did
    not count as resting on the liar's word, and (lie kept) the victim never rolled back
    (``(2, 61, True) not in []``). Now every record applied from a page notes its responder until
    another seat's message of the next step is applied over it: the victim rolls back."""
    assert_converged(*resumed_catch_up(tmp_path, lie_kept, after=3))


@pytest.mark.xfail(strict=True, reason="RV16-G F3: RecordIngest.word lives in memory only; after a restart "
                   "the logged lie is an ordinary applied version and kept_version keeps it: no roll back, "
                   "the victim stalls (stated in §C3.4 'Not closed')")
def test_a_restart_right_after_the_lies_page(tmp_path):
    """RV16-G F3 [MED] (lie kept): the victim's process restarts from its own log (no cut) right
    after applying the liar's tail page, before the table's record of k reaches it."""
    assert_converged(*resumed_catch_up(tmp_path, True, crash=True))


@pytest.mark.xfail(strict=True, reason="RV16-G F4: a returning player fed a lie followed by genuine records: "
                   "honest seats 0 and 2 end one step and one epoch behind 1, 3, 4, no GameOver (not "
                   "root-caused; stated in §C8.9)")
def test_a_returning_player_fed_a_lie_followed_by_genuine_records(tmp_path):
    """RV16-G F4 [MED] (table's version kept; predates H179): 5 seats, seat 3 returning (§C8.9) gets
    the lie at k then 3 genuine records. Measured: t = 30 s, seats 0 and 2 at step 68 epoch 1,
    seats 1, 3, 4 at step 69 epoch 2, no GameOver: the whole table stalls, not just the returner."""
    assert_returned(*returning_catch_up(tmp_path, False, after=3))
