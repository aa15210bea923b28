#!/usr/bin/env bash
# `make demo`: a real stashd downloads a real file from a local server, with a progress bar.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d /tmp/stash-demo.XXXXXX)
cleanup() {
  [ -n "${daemon:-}" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null || true
  [ -n "${server:-}" ] && kill "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

head -c $((64 * 1024 * 1024)) /dev/urandom > "$work/movie.bin"
python3 scripts/demo_server.py "$work/movie.bin" "$work/port" $((16 * 1024 * 1024)) &
server=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$work/port")/movie.bin"
digest=$(sha256sum "$work/movie.bin" | cut -d' ' -f1)

"$bin/stashd" --socket "$work/run/stashd.sock" --data-dir "$work/data" --log-level warning &
daemon=$!
for _ in $(seq 100); do [ -S "$work/run/stashd.sock" ] && break; sleep 0.1; done

export STASH_SOCKET="$work/run/stashd.sock"
stash() { "$bin/stash" "$@"; }
echo "stash add $url --id demo --sha256 <digest> --wait"
stash add "$url" --id demo --title "Demo movie" --sha256 "$digest" --wait
echo
stash show demo
echo
stash info
