"""The Python client's tests run against a real stashd and HTTP server (clients/tests/harness.py).
STASH_BIN_DIR names the folder of the stashd to run (default: `swift build --show-bin-path`)."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
sys.path.insert(0, os.path.join(ROOT, "clients", "tests"))

import harness  # noqa: E402


def bin_dir():
    configured = os.environ.get("STASH_BIN_DIR")
    if configured:
        return configured
    return subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


@pytest.fixture(scope="session")
def daemon():
    fixture = harness.Fixture(bin_dir())
    yield fixture
    fixture.stop()


@pytest.fixture
def fresh_daemon():
    """A daemon of the test's own, for tests that change every download."""
    fixture = harness.Fixture(bin_dir())
    yield fixture
    fixture.stop()
