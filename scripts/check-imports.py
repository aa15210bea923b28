#!/usr/bin/env python3
"""Fails when Package.swift and the imports of the Swift sources disagree (`make lint`).

usage: python3 scripts/check-imports.py [ROOT]   (default: the repository this script is in)

For every Swift target of Package.swift (as `swift package dump-package` reads it):

- declared: each module its files import (`import X`, `@testable import X`,
  `internal import X`, `import struct X.Y`) is one of its `dependencies`, so no module builds
  only because a target it depends on happens to pull the import in;
- used: each of its `dependencies` is imported by one of its files, so the list says what the
  target really needs (a product counts as its module: every product this package uses has
  the name of its module);
- ordered: a module of the layering in docs/ARCHITECTURE.md imports only modules below it
  (LAYERS, below), and protobuf-c's generated code is imported by StashWire alone.

Modules of the toolchain (Foundation, Glibc, Synchronization, XCTest, ...) are not
dependencies and are not checked.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
SWIFT = os.environ.get("SWIFT", "swift")
TOOLCHAIN = {"Darwin", "Dispatch", "Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc",
             "Musl", "Synchronization", "XCTest", "Testing", "_Concurrency", "Swift", "os"}

# The order of dependency of docs/ARCHITECTURE.md: Core <- Wire, Store, Fetch, Keys, HLS, Remux <- Engine
# <- Daemon <- stashd; Core <- Wire <- Client <- stash; Crypto (no Stash module) <- Fetch, Keys,
# Engine. Each module lists the modules of the layering it may import; a module of the layering
# missing from the list (StashStore for StashClient, StashFetch for StashKeys) is refused.
CORE = {"StashCore"}
LAYERS = {
    "StashCore": set(),
    "StashCrypto": set(),
    "StashWire": CORE,
    "StashStore": CORE,
    "StashHLS": CORE,
    "StashRemux": CORE,
    "StashDASH": CORE,
    "StashFetch": CORE | {"StashCrypto"},
    "StashDesktop": CORE,
    "StashKeys": CORE | {"StashCrypto"},
    "StashEngine": CORE | {"StashCrypto", "StashWire", "StashStore", "StashFetch", "StashKeys", "StashHLS",
                           "StashDASH", "StashRemux"},
    "StashDaemon": CORE | {"StashCrypto", "StashWire", "StashStore", "StashFetch", "StashKeys", "StashHLS",
                           "StashDASH", "StashRemux", "StashEngine", "StashDesktop"},
    "stashd": CORE | {"StashCrypto", "StashWire", "StashStore", "StashFetch", "StashKeys", "StashHLS",
                      "StashDASH", "StashRemux", "StashEngine", "StashDesktop", "StashDaemon"},
    "StashClient": CORE | {"StashWire"},
    "stash": CORE | {"StashWire", "StashClient"},
}
# protobuf-c types never leave StashWire, nor libav's StashRemux, nor libxml2's StashDASH, nor
# sd-bus's StashDesktop: no other module of Sources sees the generated structs, an
# AVFormatContext, an xmlDoc or an sd_bus.
WIRE_ONLY = {"CStashProto": {"StashWire"}, "CAVFormat": {"StashRemux"}, "CLibXML2": {"StashDASH"}, "CSDBus": {"StashDesktop"}}

IMPORT = re.compile(r"^[ \t]*(?:@\w+(?:\([^)]*\))?[ \t]+)*(?:(?:public|package|internal|fileprivate|private)[ \t]+)?"
                    r"import[ \t]+(?:(?:struct|class|enum|protocol|typealias|func|let|var|actor)[ \t]+)?(\w+)", re.M)


def dependency_name(dependency):
    for kind in ("byName", "target", "product"):
        if kind in dependency:
            return dependency[kind][0]
    raise SystemExit(f"check-imports: a dependency of an unknown form in Package.swift: {dependency}")


def imports_of(folder):
    found = {}
    for parent, _, files in os.walk(folder):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(parent, name)
            with open(path, encoding="utf-8") as f:
                # A multi-line string literal may hold another language's imports (a Python server).
                text = re.sub(r'"""(?:.|\n)*?"""', "", f.read())
                for module in IMPORT.findall(text):
                    found.setdefault(module, os.path.relpath(path, ROOT))
    return found


def main():
    dump = subprocess.run([SWIFT, "package", "--package-path", ROOT, "dump-package"],
                          check=True, capture_output=True, text=True).stdout
    targets = json.loads(dump)["targets"]
    errors = []
    for target in targets:
        if target["type"] not in ("regular", "executable", "test"):
            continue
        name = target["name"]
        default = os.path.join("Tests" if target["type"] == "test" else "Sources", name)
        folder = os.path.join(ROOT, target.get("path") or default)
        imported = {module: path for module, path in imports_of(folder).items() if module not in TOOLCHAIN}
        if not imported and not any(f.endswith(".swift") for _, _, fs in os.walk(folder) for f in fs):
            continue  # a C target
        declared = {dependency_name(d) for d in target["dependencies"]}
        for module, path in sorted(imported.items()):
            if module not in declared:
                errors.append(f"{path}: imports {module}, which Package.swift does not list in {name}'s dependencies")
            allowed = LAYERS.get(name)
            if module in LAYERS and allowed is not None and module not in allowed:
                errors.append(f"{path}: {name} imports {module}, which is not below it in the order of "
                              "docs/ARCHITECTURE.md (Source layout)")
            if module in WIRE_ONLY and name not in WIRE_ONLY[module] and not target["type"] == "test":
                errors.append(f"{path}: {name} imports {module}, whose C types never leave "
                              f"{', '.join(sorted(WIRE_ONLY[module]))}")
        for module in sorted(declared - set(imported)):
            errors.append(f"Package.swift: {name} lists {module} in its dependencies, but none of its files "
                          "imports it")
    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        print(f"check-imports: {len(errors)} problem(s); Package.swift lists what each target imports", file=sys.stderr)
        return 1
    print("check-imports: every Swift target imports what Package.swift lists, in the order of the layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
