"""Exit codes of the command line, and the error it reports to the user in one line.

Exit codes (protocol.md part L): 0 success; 1 the thing checked failed (peers disagree, a bad
log, a halted game); 2 the request cannot be carried out (bad arguments, missing file, unknown
interface, no game found); 3 ``verify``: every record checks out but the log ends before the game
does (what a crashed peer leaves); 4 ``verify``: every record checks out and the game ended as
abandoned (signed ABANDON, protocol.md §C8.7, no winner); 130 Ctrl-C; 143 SIGTERM.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INCOMPLETE = 3
EXIT_ABANDONED = 4
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


class UsageError(Exception):
    """The user's request cannot be carried out (bad path, unknown interface, no game found).

    The message is already translated and fits on one line; ``ui.cli.main`` prints it and
    exits with status 2.
    """
