"""Shared fixtures of the Python module's tests: the CLI to compare with and the source tree.

ctest sets PYTHONPATH (the build tree's python/ folder), MAPWRIGHT_CLI (the mapwright binary)
and MAPWRIGHT_SOURCE_DIR; run by hand: PYTHONPATH=build/python MAPWRIGHT_CLI=build/apps/mapwright
/usr/bin/python3 -m pytest tests/python
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ.get("MAPWRIGHT_SOURCE_DIR", Path(__file__).resolve().parents[2]))


@pytest.fixture(scope="session")
def source_dir():
    return SOURCE_DIR


class Cli:
    """Runs the mapwright CLI (no shell) and returns exit code, stdout, stderr."""

    def __init__(self, exe):
        self.exe = exe

    def run(self, *args, cwd=None):
        p = subprocess.run([self.exe, *map(str, args)], capture_output=True, text=True, cwd=cwd,
                           timeout=300)
        return p.returncode, p.stdout, p.stderr

    def json(self, *args, cwd=None):
        rc, out, err = self.run(*args, "--json", cwd=cwd)
        assert rc == 0, err
        return json.loads(out)

    def error(self, *args):
        """The message of a refused command (exit code 2), without the 'mapwright: error: '."""
        rc, _, err = self.run(*args)
        assert rc == 2, err
        prefix = "mapwright: error: "
        line = err.strip().splitlines()[-1]
        assert line.startswith(prefix), err
        return line[len(prefix):]


@pytest.fixture(scope="session")
def cli():
    exe = os.environ.get("MAPWRIGHT_CLI", str(SOURCE_DIR / "build" / "apps" / "mapwright"))
    if not Path(exe).exists():
        pytest.skip(f"the mapwright CLI is not built ({exe})")
    return Cli(exe)
