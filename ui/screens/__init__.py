"""Screens of the Textual UI: lobby and waiting room, game, end, and the modal dialogs."""
from .end import EndScreen
from .game import DriverChanged, GameScreen
from .lobby import LobbyScreen, WaitingScreen

__all__ = ["EndScreen", "GameScreen", "DriverChanged", "LobbyScreen", "WaitingScreen"]
