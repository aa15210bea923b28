#!/usr/bin/env python3
"""Fails when a document names what the repository does not hold (`make lint`, part of `make test`).

usage: python3 scripts/check-docs.py [ROOT]   (default: the repository this script is in)

Every Markdown file (README.md, PROTOCOL.md, docs/, bench/, clients/, ...) is checked for:

- links: a relative link names a file inside the repository, and its #anchor a heading of
  that file; links to other sites (http:, https:, mailto:) are not followed;
- paths: a path whose first folder is one at the top of the repository (`Sources/StashHLS`,
  `bench/memory.py`, `proto/stash/v1/*.proto`), backticked or in a code block, exists unless
  .gitignore names it as an output (`bench/out/results.txt`); a backticked file name without a
  folder ending in a source extension (`stash_pb2.py`, `DaemonProcess.swift`) exists somewhere.
  Spans holding `<`, `>`, a space or `=` are patterns or commands (`<data-dir>/stash.sqlite`),
  and spans starting with `$`, `%`, `~` or `/` are paths of the running system;
- no reference outside the repository: a reader has only the repository.

The documents that describe the code by its names (NAMED_DOCS) are also checked for:

- names: a backticked UpperCamelCase identifier (`CommitQueue`, `SocketActivation`), and in a
  code block every word of two or more humps (`DownloadState`), is declared: a Swift type in
  Sources or Tests (class, struct, enum, actor, protocol, typealias), a target or a dependency's
  product in Package.swift (`StashWire`, `NIOCore`), a message, enum or operation of the
  schema in proto/ (`ServerMessage`, `GetDownload`), a class of the Python client, or one of
  the few names of Swift and its packages listed in EXTERNAL. `Type.member` of a type of the
  repository also needs a func, var, let or case named `member`. A backticked `stash_*` name is declared in the C client's
  header, a backticked `test*` name is a test method;
- modules: every word Stash<Upper>... or NIO<Upper>... anywhere (prose too) is such a name, and
  the folders listed under `Sources/` in a code block exist.

Names that are not UpperCamelCase (a state such as QUEUED, an option such as --json) are not
checked as names.
"""
import glob
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
NAMED_DOCS = ["docs/ARCHITECTURE.md", "docs/CLIENTS.md"]
# Names from Swift, its standard library and the packages of Package.swift that the named docs
# may use; anything else must be declared in the repository.
EXTERNAL = {"AsyncSequence", "Logger", "Mutex", "NIOAsyncChannel", "NIOThreadPool", "Sendable", "Task", "TaskExecutor"}
SKIP_DIRS = {".git", "node_modules", "__pycache__"}
SOURCE_EXTENSIONS = (".swift", ".py", ".c", ".h", ".md", ".proto", ".sh", ".modulemap")
OUTSIDE = re.compile(r"/work/|\.\./shared\b|shared/DESIGN\.md")

errors = []


def fail(doc, line, message):
    errors.append(f"{doc}:{line}: {message}")


def walk(top, suffixes):
    for folder, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".build")]
        if os.path.relpath(folder, ROOT).replace(os.sep, "/") in ignored:
            dirs[:] = []
            continue
        for name in files:
            if name.endswith(suffixes):
                yield os.path.join(folder, name)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


# ---- what the repository holds and declares ----

gitignore = os.path.join(ROOT, ".gitignore")
# Anchored folders of .gitignore ("/bench/out/"): outputs that a fresh clone does not have.
ignored = {line.strip().strip("/") for line in (read(gitignore).splitlines() if os.path.exists(gitignore) else [])
           if line.startswith("/") and line.strip().endswith("/")}
root_entries = set(os.listdir(ROOT))
file_names = {os.path.basename(p) for p in walk(ROOT, SOURCE_EXTENSIONS)}

SWIFT_TYPE = re.compile(r"\b(?:class|struct|enum|actor|protocol|typealias)\s+([A-Za-z_]\w*)")
SWIFT_MEMBER = re.compile(r"\b(?:func|var|let|case)\s+`?([A-Za-z_]\w*)")
SWIFT_CASE_LIST = re.compile(r"\bcase\s+([a-z]\w*(?:\([^)]*\))?(?:\s*,\s*[a-z]\w*(?:\([^)]*\))?)+)")
types, members, tests = set(), set(), set()
for path in list(walk(os.path.join(ROOT, "Sources"), (".swift",))) + list(walk(os.path.join(ROOT, "Tests"), (".swift",))):
    text = read(path)
    types.update(SWIFT_TYPE.findall(text))
    members.update(SWIFT_MEMBER.findall(text))
    for cases in SWIFT_CASE_LIST.findall(text):
        members.update(re.findall(r"(?:^|,)\s*([a-z]\w*)", cases))
    if re.search(r"\binit[?!]?\(", text):
        members.add("init")
    tests.update(re.findall(r"\bfunc\s+(test\w+)\s*\(", text))
for path in walk(os.path.join(ROOT, "clients/python"), (".py",)):
    types.update(re.findall(r"^class\s+(\w+)", read(path), re.M))

package = read(os.path.join(ROOT, "Package.swift"))
modules = set(re.findall(r'\.(?:target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)"', package))
modules |= set(re.findall(r'\.product\(name:\s*"([^"]+)"', package))

wire = set()
for path in walk(os.path.join(ROOT, "proto"), (".proto",)):
    text = read(path)
    wire.update(re.findall(r"^\s*(?:message|enum)\s+(\w+)", text, re.M))
    for block in re.findall(r"oneof\s+op\s*\{([^}]*)\}", text):
        for field in re.findall(r"^\s*\w+\s+(\w+)\s*=", block, re.M):
            wire.add("".join(part.capitalize() for part in field.split("_")))

c_header = os.path.join(ROOT, "clients/c/include/stash/client.h")
c_names = set(re.findall(r"\b(stash_\w+)", read(c_header))) if os.path.exists(c_header) else set()


def is_declared(name):
    return name in types or name in modules or name in wire or name in EXTERNAL


# ---- the documents ----

FENCE = re.compile(r"^\s*```")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
TYPE_NAME = re.compile(r"^([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)(?:\.([a-z_]\w*))?(?:\(\))?$")
HUMPS = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b")
MODULE_WORD = re.compile(r"\b(?:Stash|NIO)[A-Z]\w*")


def slug(heading):
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    found = set()
    in_fence = False
    for line in read(path).splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and line.startswith("#"):
            found.add(slug(line.lstrip("#")))
    return found


def check_path(doc, number, span, bare_names):
    if not span or any(c in span for c in "<> =") or span[0] in "$%~/":
        return
    candidate = span.rstrip("/")
    if "/" in candidate and candidate.split("/")[0] in root_entries:
        if any(candidate == d or candidate.startswith(d + "/") for d in ignored):
            return
        if not glob.glob(os.path.join(ROOT, candidate)):
            fail(doc, number, f"path {span} does not exist")
    elif bare_names and "/" not in candidate and re.fullmatch(r"[\w.+\-]+", candidate) \
            and candidate.endswith(SOURCE_EXTENSIONS) and candidate not in file_names:
        fail(doc, number, f"file {span} does not exist")


def check_name(doc, number, span):
    match = TYPE_NAME.match(span)
    if match:
        name, member = match.groups()
        if not is_declared(name):
            fail(doc, number, f"{span}: no type, module or wire message {name} in Sources, Tests, Package.swift, proto/ or clients/python")
        elif member and member not in members and name not in EXTERNAL:
            fail(doc, number, f"{span}: nothing named {member} is declared in Sources or Tests")
    elif re.fullmatch(r"stash_\w+", span) and span not in c_names:
        fail(doc, number, f"{span} is not declared in clients/c/include/stash/client.h")
    elif re.fullmatch(r"test[A-Z]\w*", span) and span not in tests:
        fail(doc, number, f"{span} is not a test method in Tests")


def check_doc(path):
    doc = os.path.relpath(path, ROOT)
    named = doc in NAMED_DOCS
    in_fence, listing = False, None
    for number, line in enumerate(read(path).splitlines(), 1):
        if OUTSIDE.search(line):
            fail(doc, number, "refers to something outside the repository")
        if FENCE.match(line):
            in_fence, listing = not in_fence, None
            continue
        if named:
            for word in MODULE_WORD.findall(line):
                if not is_declared(word):
                    fail(doc, number, f"{word}: no module or type of that name")
        if in_fence:
            if named:
                words = " ".join(token for token in line.split() if "/" not in token)
                for word in HUMPS.findall(words):
                    if not is_declared(word):
                        fail(doc, number, f"{word}: no type, module or wire message of that name")
                # A layout listing: "Sources/", then indented "Module/  what it holds" lines.
                top = re.fullmatch(r"(\w+)/\s*", line)
                if top and top.group(1) in root_entries:
                    listing = top.group(1)
                elif listing and re.match(r"\s+\S", line):
                    for folder in re.findall(r"(?:^\s+|,\s*)([\w-]+)/", line):
                        if not os.path.isdir(os.path.join(ROOT, listing, folder)):
                            fail(doc, number, f"{listing}/{folder}/ does not exist")
                else:
                    listing = None
            for token in line.split():
                check_path(doc, number, token.strip(",;:()`'\""), bare_names=False)
            continue
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target):
                continue
            file_part, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not resolved.startswith(ROOT + os.sep):
                fail(doc, number, f"link {target} leaves the repository")
            elif not os.path.exists(resolved):
                fail(doc, number, f"link {target}: no such file")
            elif anchor and (not resolved.endswith(".md") or anchor not in anchors(resolved)):
                fail(doc, number, f"link {target}: no heading #{anchor} in {os.path.relpath(resolved, ROOT)}")
        for _, span in CODE_SPAN.findall(line):
            span = span.strip()
            check_path(doc, number, span, bare_names=True)
            if named:
                check_name(doc, number, span)


docs = sorted(walk(ROOT, (".md",)))
for name in NAMED_DOCS:
    if not os.path.exists(os.path.join(ROOT, name)):
        errors.append(f"{name}: missing")
for path in docs:
    check_doc(path)
if errors:
    print("\n".join(errors), file=sys.stderr)
    print(f"check-docs: {len(errors)} problem(s) in {len(docs)} documents", file=sys.stderr)
    sys.exit(1)
print(f"check-docs: {len(docs)} documents: every link, path and name they give exists")
