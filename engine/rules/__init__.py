"""Shared rules, one module per rule family; every edition uses the same code, steered by the
switches of its ``Edition``. Functions take the mutable state ``s`` and an event list ``ev``
and change ``s`` in place; validators raise ``IllegalAction`` before changing anything."""
