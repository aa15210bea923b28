"""Writes the benchmark corpus once: one 1 GiB file, 2,000 files of 64 KiB and one tiny file
(the 100,000 records of the daemon-start workload), with a manifest of their SHA-256 digests
so every tool's output can be checked afterwards.

usage: make_corpus.py CORPUS_DIR
The manifest is written last, so a corpus interrupted half-way is regenerated next time.
"""
import hashlib
import os
import sys

BIG_SIZE = 1 << 30
# Random bytes, not zeros or a short period: a sparse file or a compressing layer must not
# make any tool look fast. A 64 MiB random block repeated is incompressible at every scale
# that matters and takes seconds, not minutes, to write.
BLOCK = 64 << 20
SMALL_COUNT = 2000
SMALL_SIZE = 64 << 10
# Small enough that 100,000 copies cost the disk their inodes and blocks, not bytes.
TINY_SIZE = 16


def main() -> None:
    corpus = sys.argv[1]
    small_dir = os.path.join(corpus, "small")
    os.makedirs(small_dir, exist_ok=True)
    manifest = os.path.join(corpus, "manifest.sha256")
    if os.path.exists(manifest):
        os.remove(manifest)

    block = os.urandom(BLOCK)
    digest = hashlib.sha256()
    with open(os.path.join(corpus, "big.bin"), "wb") as out:
        for _ in range(BIG_SIZE // BLOCK):
            out.write(block)
            digest.update(block)
    lines = [f"{digest.hexdigest()}  big.bin"]

    for index in range(SMALL_COUNT):
        data = os.urandom(SMALL_SIZE)
        name = f"f{index:04d}.bin"
        with open(os.path.join(small_dir, name), "wb") as out:
            out.write(data)
        lines.append(f"{hashlib.sha256(data).hexdigest()}  small/{name}")

    tiny = os.urandom(TINY_SIZE)
    with open(os.path.join(corpus, "tiny.bin"), "wb") as out:
        out.write(tiny)
    lines.append(f"{hashlib.sha256(tiny).hexdigest()}  tiny.bin")

    with open(manifest + ".tmp", "w") as out:
        out.write("\n".join(lines) + "\n")
    os.replace(manifest + ".tmp", manifest)


if __name__ == "__main__":
    main()
