"""README's two commands and .ci/run stay in step.

Issue text: "The README's two commands: one installs and runs the demo, one installs and runs
the test suite; `.ci/run` calls the second."
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def readme_commands() -> list[str]:
    """The one-line commands in the README's ```sh blocks under "The two commands"."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## The two commands", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", section, re.S)]


def test_readme_has_a_demo_command_and_a_test_command():
    demo, tests = readme_commands()
    assert "pip install -e ." in demo and demo.endswith("lanopoli demo --peers 4")
    assert "pip install -e '.[test]'" in tests and tests.endswith("pytest -q")


def test_ci_runs_exactly_the_readme_test_command():
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    match = re.search(r'^readme_test_command="(.*)"$', script, re.M)
    assert match, ".ci/run must name the README command in readme_test_command"
    assert match.group(1) == readme_commands()[1]
    assert 'bash -c "$readme_test_command"' in script
    assert "set -euo pipefail" in script and "-eq 5" in script


def test_ci_run_is_executable():
    assert os.access(ROOT / ".ci" / "run", os.X_OK)


def test_readme_commands_parse_as_shell():
    for command in readme_commands():
        for part in command.split("&&"):
            assert shlex.split(part), command
