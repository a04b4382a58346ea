"""Shared helpers for engine tests (engine.testing is the test-only state builder)."""
