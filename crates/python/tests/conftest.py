"""Fixtures of the lowwater package's tests: the repository, and the CLI
binary the comparisons run (LOWWATER_BIN, else target/debug/lowwater, built
when missing)."""

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def lowwater_bin() -> str:
    path = os.environ.get("LOWWATER_BIN") or str(REPO / "target" / "debug" / "lowwater")
    if not os.path.exists(path):
        subprocess.run(["cargo", "build", "-q", "-p", "lowwater"], cwd=REPO, check=True)
    return path


@pytest.fixture
def cli(lowwater_bin):
    """Runs the CLI; returns (exit code, stdout, stderr)."""

    def run(*args: str):
        p = subprocess.run([lowwater_bin, "-q", *args], cwd=REPO, capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    return run
