#!/usr/bin/env bash
# make install and make uninstall, tested with the build in $1 (make test's debug build, so no
# release build is made for it):
#  1. make install DESTDIR=$tmp PREFIX=/usr installs exactly scripts/install-manifest.txt, with
#     the prefix in the service's ExecStart and the .pc, and make uninstall leaves no file;
#  2. installed for real under a temporary PREFIX, the units pass systemd-analyze verify, and
#     systemd-analyze security rates the service's sandbox (printed; failing above 3.0), and
#     the man pages and completions are what the binaries generate.
set -euo pipefail
bin=${1:?usage: test-install.sh BIN_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/stash-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test-install: $*" >&2; exit 1; }
cd "$root"

make --no-print-directory -s install DESTDIR="$tmp/dest" PREFIX=/usr INSTALL_BIN_DIR="$bin" >/dev/null
(cd "$tmp/dest" && find . \( -type f -o -type l \) | sed 's|^\./||' | LC_ALL=C sort) >"$tmp/installed"
diff -u scripts/install-manifest.txt "$tmp/installed" || fail "make install did not install exactly scripts/install-manifest.txt"
grep -qx 'ExecStart=/usr/bin/stashd --data-dir %h/.local/share/stash --exit-when-idle 300 --notify groups' "$tmp/dest/usr/lib/systemd/user/stashd.service" \
  || fail "the installed stashd.service does not start /usr/bin/stashd"
grep -qx 'prefix=/usr' "$tmp/dest/usr/lib/pkgconfig/stash-client.pc" || fail "stash-client.pc does not name prefix /usr"
make --no-print-directory -s uninstall DESTDIR="$tmp/dest" PREFIX=/usr >/dev/null
left=$(cd "$tmp/dest" && find . \( -type f -o -type l \))
[ -z "$left" ] || fail "make uninstall left: $left"

prefix="$tmp/prefix"
make --no-print-directory -s install PREFIX="$prefix" INSTALL_BIN_DIR="$bin" >/dev/null
units="$prefix/share/systemd/user"
[ -f "$units/stashd.socket" ] || fail "PREFIX=$prefix did not put the units in $units, where the user manager reads them"
grep -qx "ExecStart=$prefix/bin/stashd --data-dir %h/.local/share/stash --exit-when-idle 300 --notify groups" "$units/stashd.service" \
  || fail "ExecStart does not name $prefix/bin/stashd"
# systemd-analyze needs a runtime dir for a user manager's paths, not a running one.
mkdir -m 700 "$tmp/run"
export XDG_RUNTIME_DIR="$tmp/run"
systemd-analyze verify --user --man=no "$units/stashd.socket" "$units/stashd.service" || fail "systemd-analyze verify found problems"
score=$(systemd-analyze security --user --offline=yes "$units/stashd.service" | sed -n 's/.*Overall exposure level for stashd.service: \([0-9.]*\).*/\1/p')
echo "test-install: systemd-analyze security rates stashd.service's exposure $score (0 safest, 10 least)"
awk -v score="$score" 'BEGIN { exit !(score != "" && score <= 3.0) }' || fail "stashd.service's exposure $score is above 3.0"
cmp -s <("$bin/stash" --generate-completion-script bash) "$prefix/share/bash-completion/completions/stash" || fail "bash completion differs from the binary's"
grep -q '^\.Dt STASHD 8' "$prefix/share/man/man8/stashd.8" || fail "stashd.8 is not a section 8 page"
grep -q 'exit-when-idle' "$prefix/share/man/man8/stashd.8" || fail "stashd.8 does not list --exit-when-idle"
grep -q '^\.Dt STASH 1' "$prefix/share/man/man1/stash.1" || fail "stash.1 is not a section 1 page"
make --no-print-directory -s uninstall PREFIX="$prefix" >/dev/null
echo "test-install: install and uninstall match the manifest; the units verify"
