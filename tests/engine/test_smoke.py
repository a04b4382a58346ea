"""Smoke: the public API of ARCHITECTURE.md §1 is importable and a seeded game runs."""
import engine


def test_public_api_playout_runs_and_round_trips():
    s, counts = engine.random_playout(0, seats=4, max_steps=3000)
    assert counts["dice"] > 0
    assert engine.decode_state(engine.encode_state(s)) == s
    assert len(engine.state_hash(s)) == 32
