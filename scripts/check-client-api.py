#!/usr/bin/env python3
"""Fails when an app importing StashClient sees the daemon's plumbing, or cannot use the client
(`make test`, after the build).

usage: python3 scripts/check-client-api.py BIN_PATH   (BIN_PATH: `swift build --show-bin-path`)

StashClient re-exports StashCore and StashWire (`@_exported import`), so an app sees their public
declarations; what the daemon's modules share among themselves is `package`, which no module of
another package sees. The checks compile against the modules of the build at BIN_PATH the way
another package's module does: with the flags the build used for stash-scenario (a program that
depends on StashClient alone) but without this package's name.

1. The public top-level names of StashCore, StashWire and StashClient are exactly CLIENT_API
   below, and none of them extends a type of another module (`Int64`, `String`): a new public
   type is either part of the client (add it here and say so in docs/CLIENTS.md) or `package`.
2. Tests/OutsideApp/App.swift, which calls every method of the client and reads its records
   and errors, compiles.
3. Every statement of Tests/OutsideApp/Plumbing.swift's function fails to compile: each names
   something of the daemon's (a type, a member of a record) that was public once.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
APP = os.path.join(ROOT, "Tests/OutsideApp/App.swift")
PLUMBING = os.path.join(ROOT, "Tests/OutsideApp/Plumbing.swift")
MODULES = ["StashCore", "StashWire", "StashClient"]
# What an app sees: the client, the requests it takes, the records and events it answers with,
# their errors, and where the daemon's socket is by default.
CLIENT_API = {
    "StashClient": {"StashClient"},
    "StashWire": {"AddDownloadRequest", "AdoptRequest", "HelloResult"},
    "StashCore": {
        "BatteryPolicy", "BundleFileSpec", "DRMParams", "DaemonConfig", "Download", "DownloadError", "DownloadEvent", "DownloadFile",
        "DownloadPage", "DownloadPriority", "DownloadState", "DownloadStats", "EventsLost", "ExportFormat", "ExportProgress", "ExportResult",
        "ExportTrack", "GroupTotals", "HLSOptions",
        "HTTPHeader", "LicenseCheck", "LicenseEvent", "LicenseStatus", "LicenseTerms", "ManifestInfo", "NetworkRequirement", "NotifyPolicy", "PlaybackKey",
        "ProgressUpdate", "PurgeResult", "QueueMove", "SleepInhibitMode", "StashError", "StashPaths", "StashVersion", "SystemInfo", "TextTrack",
        "VerifyFinding", "VerifyReport",
    },
}
# The flags of the build's compile command that locate modules; the rest (outputs, the package
# name, incremental state) are the build's own.
KEEP_WITH_VALUE = {"-I", "-Xcc", "-target", "-module-cache-path", "-swift-version", "-sdk", "-resource-dir"}

errors = []


def compile_flags(bin_path):
    """The compiler and the flags the build gave stash-scenario, from SwiftPM's build description."""
    config = os.path.basename(os.path.normpath(bin_path))
    description = os.path.join(os.path.dirname(os.path.dirname(os.path.normpath(bin_path))), f"{config}.yaml")
    with open(description, encoding="utf-8") as f:
        text = f.read()
    match = re.search(r'^  "C\.stash-scenario-[^"]*\.module":\n(?:    .*\n)*?    args: (\[.*\])$', text, re.M)
    if not match:
        raise SystemExit(f"check-client-api: no compile command of stash-scenario in {description}; build first")
    args = json.loads(match.group(1))
    flags = []
    i = 1
    while i < len(args):
        if args[i] in KEEP_WITH_VALUE and i + 1 < len(args):
            flags += args[i:i + 2]
            i += 2
        else:
            i += 1
    return args[0], flags


def public_names(swiftc, flags, scratch):
    """Per module, its public top-level names, and the public members it adds to other modules' types."""
    extractor = os.path.join(os.path.dirname(swiftc), "swift-symbolgraph-extract")
    names, extensions = {}, {}
    for module in MODULES:
        out = os.path.join(scratch, module)
        os.makedirs(out)
        # symbolgraph-extract takes the compiler's -Xcc flags as they are, the rest without the
        # driver's spelling of -target.
        subprocess.run([extractor, "-module-name", module, "-minimum-access-level", "public", "-output-dir", out] + flags,
                       check=True, capture_output=True, text=True)
        names[module], extensions[module] = set(), []
        for name in os.listdir(out):
            with open(os.path.join(out, name), encoding="utf-8") as f:
                graph = json.load(f)
            extended = name[len(module) + 1:-len(".symbols.json")] if "@" in name else None
            for symbol in graph["symbols"]:
                path = ".".join(symbol["pathComponents"])
                if extended is None and len(symbol["pathComponents"]) == 1:
                    names[module].add(path)
                elif extended is not None and extended not in MODULES:
                    extensions[module].append(f"{extended}: {path}")
    return names, extensions


def typecheck(swiftc, flags, path):
    """The compiler's errors for `path`, as (line, message)."""
    result = subprocess.run([swiftc, "-typecheck", "-parse-as-library", "-diagnostic-style", "llvm"] + flags + [path],
                            capture_output=True, text=True)
    found = re.findall(rf"^{re.escape(path)}:(\d+):\d+: error: (.*)$", result.stderr, re.M)
    if result.returncode != 0 and not found:
        raise SystemExit(f"check-client-api: the compiler failed on {path} without an error in it:\n{result.stderr}")
    return [(int(line), message) for line, message in found]


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__.split("\n\n")[1])
    swiftc, flags = compile_flags(sys.argv[1])
    with tempfile.TemporaryDirectory() as scratch:
        names, extensions = public_names(swiftc, flags, scratch)
    for module in MODULES:
        for name in sorted(names[module] - CLIENT_API[module]):
            errors.append(f"{module}: public {name} is not part of the client (CLIENT_API in scripts/check-client-api.py): "
                          "make it package, or add it to CLIENT_API and docs/CLIENTS.md")
        for name in sorted(CLIENT_API[module] - names[module]):
            errors.append(f"{module}: {name} of CLIENT_API is not public in {module}")
        for member in extensions[module]:
            errors.append(f"{module}: public {member} extends a type of another module; make it package")

    for line, message in typecheck(swiftc, flags, APP):
        errors.append(f"{os.path.relpath(APP, ROOT)}:{line}: an app cannot use this: {message}")

    refused = {line for line, _ in typecheck(swiftc, flags, PLUMBING)}
    with open(PLUMBING, encoding="utf-8") as f:
        lines = f.read().splitlines()
    body = [n for n, text in enumerate(lines, 1) if text.startswith("    ") and text.strip()]
    for n in body:
        if n not in refused:
            errors.append(f"{os.path.relpath(PLUMBING, ROOT)}:{n}: an app can use this: {lines[n - 1].strip()}")

    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        print(f"check-client-api: {len(errors)} problem(s) in what an app importing StashClient sees", file=sys.stderr)
        return 1
    print(f"check-client-api: an app sees the client ({sum(len(n) for n in CLIENT_API.values())} public types) and "
          f"none of the {len(body)} names of the daemon's plumbing")
    return 0


if __name__ == "__main__":
    sys.exit(main())
