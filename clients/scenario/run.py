"""Runs the shared scenario (README.md) through the Swift, C and Python clients against one
stashd and checks each transcript against expected.txt."""
import argparse
import difflib
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import harness  # noqa: E402

TIMEOUT = 120


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bin", required=True, help="the folder of the stashd to run")
    parser.add_argument("--swift", required=True, help="the Swift scenario program (stash-scenario)")
    parser.add_argument("--c", required=True, help="the C scenario program")
    parser.add_argument("--python", required=True, help="the Python scenario script")
    args = parser.parse_args()
    with open(os.path.join(HERE, "expected.txt")) as f:
        expected = f.read()
    clients = [("swift", [args.swift]), ("c", [args.c]), ("py", [sys.executable, args.python])]
    fixture = harness.Fixture(args.bin)
    failed = []
    try:
        for prefix, command in clients:
            run = subprocess.run(command + [fixture.socket, fixture.base_url, prefix], capture_output=True, text=True,
                                 timeout=TIMEOUT, env=fixture.environment())
            transcript = run.stdout.replace(f"{prefix}-", "P-")
            if run.returncode != 0 or transcript != expected:
                failed.append(prefix)
                print(f"scenario: the {prefix} client (exit {run.returncode}) differs from expected.txt:", file=sys.stderr)
                sys.stderr.writelines(difflib.unified_diff(
                    expected.splitlines(True), transcript.splitlines(True), "expected.txt", f"{prefix} client"))
                sys.stderr.write(run.stderr)
            else:
                print(f"scenario: the {prefix} client printed expected.txt ({len(expected.splitlines())} steps)")
        if failed:
            print(f"stashd's log:\n{fixture.log()}", file=sys.stderr)
    finally:
        fixture.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
