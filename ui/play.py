"""Game drivers, by the name the rest of the UI and the tests import them from.

The drivers live in their own modules; this one only gathers their public names:

* ``ui/driver.py`` — what every driver shares: the ``GameDriver`` interface the UI reads,
  ``DriverBase`` (attributes, notifications, chat, own inputs), and the records a driver
  reports (``Fault``, ``OwnInput``, ``SeatChanged``, ``MyGame``);
* ``ui/local_game.py`` — ``LocalGame``, an in-process game against bots (``pinned_chance``);
* ``ui/net_game.py`` — ``NetGame``, a real peer (``p2p.node.Node``) with the human at our
  seat (``bot_names``, ``BOT_PACE_S``, ``WAIT_NOTICE_S``);
* ``ui/human_seat.py`` — ``HumanSeat``, the human's answer at each decision step.

The lobby side (backends that list, create, join and watch games; remembered settings) is
``ui/backends.py``; the spectator's driver is ``ui/watch.py``.
"""

from __future__ import annotations

from ui.driver import DriverBase, Fault, GameDriver, MyGame, OwnInput, SeatChanged
from ui.human_seat import HumanSeat, inspect_wanted
from ui.local_game import LOCAL_STEP_DELAY_S, LocalGame, pinned_chance
from ui.net_game import BOT_PACE_S, WAIT_NOTICE_S, NetGame, bot_names

__all__ = ["HumanSeat", "OwnInput", "SeatChanged", "MyGame", "GameDriver", "LocalGame", "NetGame", "Fault",
           "DriverBase", "pinned_chance", "inspect_wanted", "bot_names", "BOT_PACE_S", "WAIT_NOTICE_S",
           "LOCAL_STEP_DELAY_S"]
