"""Textual widgets of the game screen: the board, the players panel, the action bar.

Attributes down, messages up (STYLE.md, Textual): each widget renders what the screen sets on
it and posts intent messages; none holds game state of its own.
"""
from .actions import ActionBar, Command, commands_for
from .board import Board
from .players import PlayersPanel

__all__ = ["ActionBar", "Command", "commands_for", "Board", "PlayersPanel"]
