"""lanopoli."""
