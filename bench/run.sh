#!/usr/bin/env bash
# `make bench`: times stash against curl, wget2 and aria2c on a local nginx, then measures the
# control plane with stash-bench, the same small files as bundles, a daemon start over
# 100,000 records, the scale of a registry of 100,000 queued downloads, and an HLS download
# (720p of a 10-minute, 3-variant stream with two subtitle tracks) against yt-dlp and ffmpeg, a
# DASH download (the 720p representation and the audio of a 10-minute MPD) against yt-dlp,
# small downloads made durable while another process holds unwritten data on the same disk
# (the noisy neighbour) against curl and `sync -d`, and prints (and saves to
# bench/out/results.txt) one table. Every output is verified against the corpus or stream manifest, so a broken run
# cannot look fast.
#
# Environment: STASH_BIN_DIR overrides the release build directory holding stashd, stash and
# stash-bench (default: the build of `make release`, which it makes); BENCH_REPEAT is how many
# times each transfer is timed, the fastest counting (default 3); BENCH_ONLY, a comma-separated
# list of parts (1GiB, 2000x64KiB, 2000x64KiB-https, bundles, start100k, registry, hls, dash,
# memory, clients, noisy), runs only those, e.g.
# `BENCH_ONLY=hls bash bench/run.sh`, and saves to bench/out/results-<parts>.txt instead.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/bench/out
CORPUS=$OUT/corpus
RUNS=$OUT/runs
TIMES=$OUT/times.tsv
# workload, tool, CPU seconds of the command (with its children) and of stashd, fastest run.
CPU=$OUT/cpu.tsv
# workload, tool and the CPU seconds of each kind of thread, of stashd (bench/thread_cpu.py) or
# of the promise in C, fastest run.
THREADS=$OUT/threads.tsv
CONTROL=$OUT/control.txt
START=$OUT/start.txt
SOCKET=$OUT/s/stashd.sock
STASH_DATA=$OUT/stashdata
# Its own data dir: the daemon-start workload keeps its 100,000 records across restarts,
# which every other stash run would wipe.
START_DATA=$OUT/stash100k
BUNDLES=$OUT/bundles
PARALLEL=16
RECORDS=100000
# Seconds a stash client may wait for its downloads before the run counts as failed: a lost
# event must cost one row, not the whole bench.
WAIT_LIMIT=300
REPEAT=${BENCH_REPEAT:-3}
# The HLS workload: the stream made once by make_hls.sh, and the variant every tool fetches.
HLS=$OUT/hls
HLS_SECONDS=600
HLS_VARIANT=v720
HLS_HEIGHT=720
# The DASH workload: the presentation made once by make_dash.sh; every tool fetches its 720p
# video representation and its audio.
DASH=$OUT/dash
DASH_SECONDS=600
ONLY=${BENCH_ONLY:-}
RESULTS=$OUT/results${ONLY:+-${ONLY//,/-}}.txt

# want PART: whether this run includes PART (all parts unless BENCH_ONLY names some).
want() { [[ -z $ONLY || ,$ONLY, == *,$1,* ]]; }
# Whether any part that needs the file corpus runs.
want_corpus() { want 1GiB || want 2000x64KiB || want 2000x64KiB-https || want bundles || want start100k || want noisy; }

# What bash's `time` prints around a timed run: user and system CPU seconds.
TIMEFORMAT='%3U %3S'

log() { printf '[bench] %s\n' "$*" >&2; }

# ---------------------------------------------------------------- tools
install_missing() {
    local missing=()
    command -v nginx >/dev/null || missing+=(nginx-light)
    command -v curl >/dev/null || missing+=(curl)
    command -v wget2 >/dev/null || missing+=(wget2)
    command -v aria2c >/dev/null || missing+=(aria2)
    command -v python3 >/dev/null || missing+=(python3)
    command -v sha256sum >/dev/null || missing+=(coreutils)
    if want 2000x64KiB-https; then
        command -v openssl >/dev/null || missing+=(openssl)
        command -v update-ca-certificates >/dev/null || missing+=(ca-certificates)
    fi
    if want clients; then
        "${CLIENT_PYTHON:-/usr/bin/python3}" -c 'import google.protobuf' 2>/dev/null || missing+=(python3-protobuf)
        pkg-config --exists libprotobuf-c 2>/dev/null || missing+=(libprotobuf-c-dev pkg-config)
    fi
    if want hls || want dash; then
        command -v ffmpeg >/dev/null || missing+=(ffmpeg)
        command -v ffprobe >/dev/null || missing+=(ffmpeg)
    fi
    ((${#missing[@]} == 0)) && return
    log "installing ${missing[*]}"
    local sudo=()
    ((EUID == 0)) || sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    if ! DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null; then
        # Some releases ship only the full nginx package.
        missing=("${missing[@]/nginx-light/nginx}")
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

# yt-dlp for the HLS workload: the one on PATH, else the newest from PyPI in a venv under
# bench/out (Debian's python refuses a system-wide pip install, and its yt-dlp package lags).
YTDLP=
install_ytdlp() {
    local venv=$OUT/venv
    if command -v yt-dlp >/dev/null; then
        YTDLP=$(command -v yt-dlp)
    else
        if [[ ! -x $venv/bin/yt-dlp ]]; then
            log "installing yt-dlp into $venv"
            if ! python3 -m venv "$venv" >/dev/null 2>&1; then
                ((EUID == 0)) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
                rm -rf "$venv" && python3 -m venv "$venv"
            fi
            "$venv/bin/pip" install -q --disable-pip-version-check yt-dlp >&2 || log "pip install yt-dlp failed"
        fi
        [[ -x $venv/bin/yt-dlp ]] && YTDLP=$venv/bin/yt-dlp
    fi
    [[ -n $YTDLP ]] && log "yt-dlp $("$YTDLP" --version) at $YTDLP"
    return 0
}

# ---------------------------------------------------------------- corpus
make_corpus() {
    # A corpus from before tiny.bin existed is made again whole: that takes seconds, and
    # keeps the manifest the single list of what the corpus holds.
    if grep -q ' tiny.bin$' "$CORPUS/manifest.sha256" 2>/dev/null; then
        log "corpus present in $CORPUS"
        return
    fi
    log "generating corpus (1 GiB + 2,000 x 64 KiB + 16 B) in $CORPUS"
    python3 "$ROOT/bench/make_corpus.py" "$CORPUS"
}

# The HLS stream, made once like the corpus (make_hls.sh writes its manifest.txt last).
make_hls() {
    if grep -qx "seconds $HLS_SECONDS" "$HLS/manifest.txt" 2>/dev/null; then
        log "HLS stream present in $HLS"
        return
    fi
    log "generating the HLS stream ($HLS_SECONDS s, 3 variants, 2 subtitle tracks) in $HLS; a few minutes"
    HLS_SECONDS=$HLS_SECONDS bash "$ROOT/bench/make_hls.sh" "$HLS"
}

# The DASH presentation, made once like the HLS stream (make_dash.sh writes its manifest.txt last).
make_dash() {
    if grep -qx "seconds $DASH_SECONDS" "$DASH/manifest.txt" 2>/dev/null; then
        log "DASH presentation present in $DASH"
        return
    fi
    log "generating the DASH presentation ($DASH_SECONDS s, 3 video representations and audio) in $DASH; a few minutes"
    DASH_SECONDS=$DASH_SECONDS bash "$ROOT/bench/make_dash.sh" "$DASH"
}

# discard PATH: moves PATH aside (a rename) into $TRASH, which is deleted when the bench ends.
# Deleting thousands of files just before a timed run made that run pay for them: ext4 without
# a journal (this machine's root) skips every inode freed in the last minute at each inode it
# allocates, a buffer lookup each, so the 2,000 single files cost stashd 890-930 µs of CPU a
# file after its previous run's 4,000 inodes were deleted and 495-625 µs without, wget2
# 477-571 µs against 148-231 µs (2026-11-26, by hand): the run measured the deletion before
# it more than the tool. A large file is deleted at once: one inode costs nothing.
TRASH=$OUT/trash
discard() {
    [[ -e $1 ]] || return 0
    mkdir -p "$TRASH"
    mv "$1" "$TRASH/$(basename "$1").$(date +%s%N)"
    find "$TRASH" -type f -size +100M -delete
}

# ---------------------------------------------------------------- nginx
NGINX_PID=
STASHD_PID=
STALL_PID=

cleanup() {
    stop_stashd
    rm -rf "$TRASH"
    if [[ -n $STALL_PID ]]; then
        kill "$STALL_PID" 2>/dev/null || true
        wait "$STALL_PID" 2>/dev/null || true
    fi
    if declare -F unmount_noisy_fs >/dev/null; then
        unmount_noisy_fs
        restore_sysctls
    fi
    stop_https
    if [[ -n $NGINX_PID ]]; then
        kill "$NGINX_PID" 2>/dev/null || true
        wait "$NGINX_PID" 2>/dev/null || true
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_nginx() {
    local dir=$OUT/nginx port user_line=
    rm -rf "$dir" && mkdir -p "$dir"/tmp
    port=$(free_port)
    # As root, nginx would switch its workers to nobody, who may not read the work tree.
    ((EUID == 0)) && user_line="user $(id -un) $(id -gn);"
    cat >"$dir/nginx.conf" <<EOF
$user_line
daemon off;
worker_processes 2;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    default_type application/octet-stream;
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    server {
        listen 127.0.0.1:$port;
        root $CORPUS;
        # The HLS stream, with the media types a streaming server sends.
        location /hls/ {
            alias $HLS/;
            types {
                application/vnd.apple.mpegurl m3u8;
                video/mp2t ts;
                text/vtt vtt;
            }
        }
        location /dash/ {
            alias $DASH/;
            types {
                application/dash+xml mpd;
                video/mp4 m4s;
            }
        }
    }
}
EOF
    nginx -p "$dir" -c "$dir/nginx.conf" &
    NGINX_PID=$!
    BASE=http://127.0.0.1:$port
    for _ in $(seq 100); do
        # Any HTTP answer will do: a run of the HLS part alone has no corpus to serve.
        curl -s -o /dev/null "$BASE/" && { log "nginx on $BASE"; return; }
        sleep 0.1
    done
    log "nginx did not answer on $BASE; see $dir/error.log"
    exit 1
}

# ---------------------------------------------------------------- HTTPS
# The HTTPS workload: a throwaway CA made for the run and trusted system-wide only while the
# run lasts (stashd's libcurl, curl and wget2 all read the system bundle, so none of them is
# told about it and nothing in stash changes), and a second nginx serving the same corpus
# with TLS and HTTP/2.
TLS=$OUT/tls
# A name of its own, so the cleanup removes this CA and nothing another CA put there.
TRUSTED_CA=/usr/local/share/ca-certificates/stash-bench-throwaway-ca.crt
CA_TRUSTED=
HTTPS_NGINX_PID=
HTTPS_BASE=

as_root() {
    if ((EUID == 0)); then "$@"; else sudo "$@"; fi
}

# make_tls: a CA and a certificate for 127.0.0.1 and localhost signed by it, P-256 keys,
# valid for a day, in $TLS.
make_tls() {
    local log=$TLS/openssl.log
    rm -rf "$TLS" && mkdir -p "$TLS"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
        -subj "/CN=stash bench throwaway CA $(date +%Y%m%d%H%M%S)" \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
        -keyout "$TLS/ca.key" -out "$TLS/ca.crt" >>"$log" 2>&1 || return 1
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 \
        -keyout "$TLS/server.key" -out "$TLS/server.csr" >>"$log" 2>&1 || return 1
    printf '%s\n' subjectAltName=IP:127.0.0.1,DNS:localhost basicConstraints=critical,CA:FALSE \
        keyUsage=critical,digitalSignature extendedKeyUsage=serverAuth >"$TLS/server.ext"
    openssl x509 -req -in "$TLS/server.csr" -CA "$TLS/ca.crt" -CAkey "$TLS/ca.key" -CAcreateserial \
        -days 1 -extfile "$TLS/server.ext" -out "$TLS/server.crt" >>"$log" 2>&1
}

# trust_ca: adds $TLS/ca.crt to the system trust (Debian's ca-certificates); stop_https takes
# it out again, from the EXIT trap too, so a failed or interrupted run leaves nothing trusted.
trust_ca() {
    command -v update-ca-certificates >/dev/null || { log "no update-ca-certificates (Debian's ca-certificates)"; return 1; }
    CA_TRUSTED=1
    as_root install -m 644 "$TLS/ca.crt" "$TRUSTED_CA" || return 1
    as_root update-ca-certificates >>"$TLS/trust.log" 2>&1
}

untrust_ca() {
    [[ -n $CA_TRUSTED ]] || return 0
    CA_TRUSTED=
    as_root rm -f "$TRUSTED_CA"
    # --fresh: without it the links to a removed CA stay behind in /etc/ssl/certs.
    as_root update-ca-certificates --fresh >>"$TLS/trust.log" 2>&1 || log "update-ca-certificates failed; see $TLS/trust.log"
}

start_nginx_https() {
    local dir=$OUT/nginx-https port user_line= version=
    rm -rf "$dir" && mkdir -p "$dir"/tmp
    port=$(free_port)
    ((EUID == 0)) && user_line="user $(id -un) $(id -gn);"
    cat >"$dir/nginx.conf" <<NGINX
$user_line
daemon off;
worker_processes 2;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
    # One line per request with its protocol, so the run shows every tool spoke HTTP/2.
    log_format protocol '\$server_protocol';
    access_log $dir/access.log protocol buffer=64k;
    sendfile on;
    tcp_nopush on;
    # Also the requests of one HTTP/2 connection (nginx 1.19.7 and later).
    keepalive_requests 100000;
    default_type application/octet-stream;
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    ssl_certificate $TLS/server.crt;
    ssl_certificate_key $TLS/server.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:SSL:1m;
    server {
        listen 127.0.0.1:$port ssl http2;
        root $CORPUS;
    }
}
NGINX
    nginx -p "$dir" -c "$dir/nginx.conf" &
    HTTPS_NGINX_PID=$!
    HTTPS_BASE=https://127.0.0.1:$port
    for _ in $(seq 100); do
        # No --cacert: the answer shows the system trusts the CA, and that ALPN chose HTTP/2.
        version=$(curl -s -o /dev/null -w '%{http_version}' "$HTTPS_BASE/tiny.bin" || true)
        [[ $version == 2 ]] && { log "nginx with TLS and HTTP/2 on $HTTPS_BASE"; return 0; }
        sleep 0.1
    done
    log "nginx gave no HTTP/2 answer with a trusted certificate on $HTTPS_BASE (last: '$version'); see $dir/error.log"
    return 1
}

stop_https() {
    if [[ -n $HTTPS_NGINX_PID ]]; then
        kill "$HTTPS_NGINX_PID" 2>/dev/null || true
        wait "$HTTPS_NGINX_PID" 2>/dev/null || true
        HTTPS_NGINX_PID=
    fi
    untrust_ca
}

# bench_floor: the disk work alone that stash's promise needs for the 2,000 files
# (bench/durable_floor.c: a folder each, the file written unnamed, fdatasync'd and linked, its folder
# and assets/ fsync'd), with as many threads as stash has sync threads; timed like a tool, its
# lowest CPU goes to cpu.tsv as the tool "durable-floor". No network, registry or events: what
# stashd spends above it is stash's own.
bench_floor() {
    local cc attempt dir figures best=
    cc=$(command -v cc || command -v clang || echo /opt/swift/usr/bin/clang)
    if ! "$cc" -O2 -pthread -o "$OUT/durable_floor" "$ROOT/bench/durable_floor.c" 2>>"$OUT/stashd.log"; then
        log "cannot compile bench/durable_floor.c; the floor is not measured"
        return
    fi
    for attempt in $(seq "$REPEAT"); do
        dir=$RUNS/durable-floor-2000x64KiB
        discard "$dir"
        settle
        figures=$("$OUT/durable_floor" "$dir" 2000 8) || { log "durable_floor failed"; return; }
        log "2000x64KiB durable-floor run ${ATTEMPT:-$attempt}: ${figures#* }s, ${figures%% *}s of CPU"
        if [[ -z $best ]] || python3 -c "import sys; sys.exit(0 if ${figures%% *} < ${best%% *} else 1)"; then best=$figures; fi
    done
    printf '2000x64KiB\tdurable-floor\t%s\t0\n' "${best%% *}" >>"$CPU"
}

# bench_download_floor WORKLOAD LIST: stash's promise for the same files kept in plain C
# (bench/download_floor.c: the transfers by libcurl's multi interface, 16 at once; the disk work
# of durable_floor.c; a SQLite row per download committed QUEUED, DOWNLOADING and COMPLETED in
# group commits 6 ms apart; nothing told to anyone), timed like a tool. Its least CPU and its
# fastest time go to cpu.tsv as the tool "download-floor", and the CPU of each of its kinds of
# thread in the run of least CPU to threads.tsv: what stashd spends above it is the cost of its
# engine, protocol and events, and what it costs against wget2 is the promise's own.
bench_download_floor() {
    local workload=$1 list=$2 cc attempt dir figures best= fastest= threads=
    cc=$(command -v cc || command -v clang || echo /opt/swift/usr/bin/clang)
    if ! "$cc" -O2 -pthread -o "$OUT/download_floor" "$ROOT/bench/download_floor.c" -lcurl -lsqlite3 2>>"$OUT/stashd.log"; then
        log "cannot compile bench/download_floor.c; the download floor is not measured"
        return
    fi
    for attempt in $(seq "$REPEAT"); do
        dir=$RUNS/download-floor-$workload
        discard "$dir"
        settle
        figures=$(FLOOR_THREADS=$dir.threads "$OUT/download_floor" "$dir" "$list" 8) || { log "download_floor failed on $workload"; return; }
        log "$workload download-floor run ${ATTEMPT:-$attempt}: ${figures#* }s, ${figures%% *}s of CPU"
        if [[ -z $best ]] || python3 -c "import sys; sys.exit(0 if ${figures%% *} < ${best%% *} else 1)"; then
            best=$figures
            # Its threads: main (the transfers), syncers, committer.
            threads=$(awk '{printf "%s%s", (NR > 1 ? "\t" : ""), $2}' "$dir.threads")
        fi
        # Its time is its fastest run's, as every tool's is, not the time of the run of least
        # CPU: on a noisy machine that was once 1.51 s where the fastest took 0.77 s.
        fastest=$(python3 -c "print(min(float(x) for x in '$fastest ${figures#* }'.split()))")
    done
    printf '%s\tdownload-floor\t%s\t0\t%s\n' "$workload" "${best%% *}" "$fastest" >>"$CPU"
    printf '%s\tdownload-floor\t%s\n' "$workload" "$threads" >>"$THREADS"
}

# bench_https: the 2,000 small files over HTTPS with HTTP/2 by curl, wget2 and stash, with the
# parallelism of the plain workload (aria2c speaks no HTTP/2, so it is left out).
bench_https() {
    local workload=2000x64KiB-https list=$OUT/small-https.list curlcfg=$OUT/small-https.curl tool i
    if ! { make_tls && trust_ca && start_nginx_https; }; then
        for tool in curl wget2 stash; do
            printf '%s\t%s\t\t%s\n' "$workload" "$tool" "no HTTPS server (see the log above and $TLS)" >>"$TIMES"
        done
        stop_https
        return
    fi
    for i in $(seq -f '%04g' 0 1999); do echo "$HTTPS_BASE/small/f$i.bin"; done >"$list"
    for i in $(seq -f '%04g' 0 1999); do printf 'url = "%s"\noutput = "f%s.bin"\n' "$HTTPS_BASE/small/f$i.bin" "$i"; done >"$curlcfg"
    local round
    for round in $(seq "$REPEAT"); do
        interleaved run_timed $workload curl "$RUNS/curl-$workload" verify_many "$RUNS/curl-$workload" \
            curl -sf --http2 --parallel --parallel-max $PARALLEL -K "$curlcfg"
        interleaved run_timed $workload wget2 "$RUNS/wget2-$workload" verify_many "$RUNS/wget2-$workload" \
            wget2 -q --http2 --max-threads=$PARALLEL -i "$list"
        interleaved run_stash $workload stash start_stashd verify_many stash_add --from-file "$list"
        stop_stashd
        interleaved bench_download_floor $workload "$list"
    done
    python3 "$ROOT/bench/best_rows.py" $workload "$TIMES" "$CPU" "$THREADS"
    stop_https
    log "$workload: requests by protocol, all runs: $(sort "$OUT/nginx-https/access.log" | uniq -c | xargs)"
}

# ---------------------------------------------------------------- stash
BIN=
find_stash() {
    # The build `make release` makes, with the Swift runtime linked in: a hand run after a plain
    # `swift build -c release` would otherwise time the shared-library build, which spends
    # 10-17 µs more of stashd's CPU a download (bench/HISTORY.md, 2026-11-28 15:00 session).
    if [[ -z ${STASH_BIN_DIR:-} ]] && ! make --no-print-directory -C "$ROOT" release >/dev/null; then
        log "'make release' failed; stash rows will say so"
    fi
    BIN=${STASH_BIN_DIR:-$(cd "$ROOT" && swift build -c release --show-bin-path 2>/dev/null || true)}
    if [[ -z $BIN || ! -x $BIN/stashd || ! -x $BIN/stash ]]; then
        log "no release stashd/stash in '${BIN}'; stash rows will say so (run 'make release')"
        BIN=
    fi
}

# launch_stashd DATA_DIR FLAGS...: starts stashd on $SOCKET over DATA_DIR as it is, without
# waiting. Only one daemon runs at a time, so every workload shares the socket path.
launch_stashd() {
    local data=$1
    shift
    stop_stashd
    mkdir -p "$data" "$(dirname "$SOCKET")"
    chmod 700 "$(dirname "$SOCKET")"
    rm -f "$SOCKET"
    # Taken last, so a timed start counts the daemon and nothing of this set-up.
    LAUNCHED=$(now)
    "$BIN/stashd" --socket "$SOCKET" --data-dir "$data" "$@" --log-level warning 2>>"$OUT/stashd.log" &
    STASHD_PID=$!
}

# wait_socket: until the daemon just launched has its socket (it binds after its start-up
# work), or it dies, or 10 s pass.
wait_socket() {
    for _ in $(seq 100); do
        [[ -S $SOCKET ]] && return 0
        kill -0 "$STASHD_PID" 2>/dev/null || break
        sleep 0.1
    done
    log "stashd did not open $SOCKET; see $OUT/stashd.log"
    return 1
}

# start_stashd [FLAGS...]: a fresh daemon over an empty $STASH_DATA, by default with
# $PARALLEL downloads at once (the peers' parallelism) and the default caps.
start_stashd() {
    stop_stashd
    discard "$STASH_DATA"
    (($# > 0)) || set -- --max-parallel $PARALLEL
    launch_stashd "$STASH_DATA" "$@"
    wait_socket
}

# The two bundle configurations of workload 3: the comic reader's 3 bundles x 5 files with
# the default connection caps, and 4 x 16 with the caps raised so they do not bind.
start_stashd_3x5() { start_stashd --max-parallel 3 --files-per-download 5; }
start_stashd_4x16() {
    start_stashd --max-parallel 4 --files-per-download 16 --max-connections 64 --max-connections-per-host 64
}

stop_stashd() {
    if [[ -n $STASHD_PID ]]; then
        kill -TERM "$STASHD_PID" 2>/dev/null || true
        wait "$STASHD_PID" 2>/dev/null || true
        STASHD_PID=
    fi
}

# ---------------------------------------------------------------- timing and checks
now() { date +%s.%N; }

# A run before each timed command, not timed: nothing for the peers, a fresh daemon for stash
# (AddDownload is idempotent, so a second add of the same URLs on the same daemon is a no-op).
PREPARE=:
# The one file under DIR (any name, any depth) must be the corpus's big.bin.
verify_big() {
    local files expected actual
    mapfile -t files < <(find "$1" -type f -size 1048576k ! -name '*.part')
    ((${#files[@]} == 1)) || { echo "verify: ${#files[@]} files of 1 GiB under $1, expected 1"; return; }
    expected=$(awk '$2 == "big.bin" {print $1}' "$CORPUS/manifest.sha256")
    actual=$(sha256sum "${files[0]}" | cut -d' ' -f1)
    [[ $actual == "$expected" ]] || { echo "verify: sha256 of ${files[0]} is $actual, expected $expected"; return; }
    echo ok
}

# Every small corpus file must appear under DIR with its exact content; names and layout are
# each tool's own, so contents are matched by digest.
verify_many() {
    local found
    found=$(comm -12 \
        <(grep ' small/' "$CORPUS/manifest.sha256" | cut -d' ' -f1 | sort -u) \
        <(find "$1" -type f ! -name '*.part' -size 64k -print0 | xargs -0 -r sha256sum | cut -d' ' -f1 | sort -u) |
        wc -l)
    ((found == 2000)) || { echo "verify: $found of 2000 files intact under $1"; return; }
    echo ok
}

# interleaved FUNCTION ARGS...: one run of a tool (FUNCTION with REPEAT=1), for the single-file
# workloads, which time their tools in rounds: a slow minute of this shared machine then falls
# on every tool of the round, not on the three runs of one. wget2's fastest of three runs in a
# row once took 0.25 s and 144 µs of CPU a file where it takes 0.15 s and 90-110 µs, and the
# targets' ratios turned on it (bench/HISTORY.md, 2026-11-28 15:00 session). Each run appends
# its rows; bench/best_rows.py then keeps each tool's best, as a best-of-N would.
interleaved() {
    REPEAT=1 ATTEMPT=$round "$@"
}

# run_timed WORKLOAD TOOL DIR VERIFY VERIFY_DIR COMMAND...: runs COMMAND in an emptied DIR
# $REPEAT times, checks each output with VERIFY on VERIFY_DIR, and records the fastest run.
# Best-of-N because this machine is shared: the other runs measure the neighbours, not the tool.
# Every run starts from the same state: the previous run's output written back and moved
# aside (`discard`), the corpus in the page cache (nginx serves it from there), and a moment
# for the file system to settle. Without this, whoever runs after a 1 GiB
# write pays for its writeback.
# SOURCES are the files the current workload's server reads: read back into the page cache.
# The kernel's slab caches are dropped too (3, not 1): left alone, ext4's cache of xattr
# blocks still named the previous run's, and wget2, which labels each file it writes with
# xattrs (`fsetxattr`, on by default), read those blocks back from disk in its next run: its
# first of three runs took 100 us of CPU a file and the two after it 150-220 us, so which run
# counted depended on what ran before it (bench/HISTORY.md, 2026-11-27 10:10 session).
# `settle 1` drops only the page cache, for the daemon's restarts below.
SOURCES=()
settle() {
    sync
    if [[ -w /proc/sys/vm/drop_caches ]]; then echo "${1:-3}" >/proc/sys/vm/drop_caches; fi
    ((${#SOURCES[@]} == 0)) || cat "${SOURCES[@]}" >/dev/null
    sleep 1
}

# daemon_cpu: seconds of CPU (user + system) the running stashd has used, 0 without one.
daemon_cpu() {
    local fields
    if [[ -n $STASHD_PID ]] && read -ra fields 2>/dev/null <"/proc/$STASHD_PID/stat"; then
        # Fields 14 and 15 (utime, stime) in clock ticks; the name (field 2) has no spaces.
        python3 -c "import os; print((${fields[13]} + ${fields[14]}) / os.sysconf('SC_CLK_TCK'))"
    else
        echo 0
    fi
}

run_timed() {
    local workload=$1 tool=$2 dir=$3 verify=$4 verify_dir=$5 attempt start end rc status seconds best= cpu= threads=
    local daemon_before daemon_after
    shift 5
    for attempt in $(seq "$REPEAT"); do
        discard "$dir" && mkdir -p "$dir"
        # Prepared before the settle: a fresh stash daemon starts over an empty data dir (the
        # previous run's moved aside, as the peers' output above is), written back before the
        # clock starts.
        if ! "$PREPARE"; then
            printf '%s\t%s\t\t%s\n' "$workload" "$tool" "could not prepare the run ($PREPARE)" >>"$TIMES"
            return
        fi
        settle
        rc=0
        [[ -z $STASHD_PID ]] || python3 "$ROOT/bench/thread_cpu.py" snapshot "$STASHD_PID" >"$dir.threads0" 2>/dev/null || true
        daemon_before=$(daemon_cpu)
        start=$(now)
        # `time` here gives the CPU of the command and every process it started: the whole cost
        # of a peer, and of stash's client side (the daemon's is read from /proc around it).
        { time (cd "$dir" && "$@" >"$dir.log" 2>&1); } 2>"$dir.cpu" || rc=$?
        end=$(now)
        daemon_after=$(daemon_cpu)
        [[ -z $STASHD_PID ]] || python3 "$ROOT/bench/thread_cpu.py" snapshot "$STASHD_PID" >"$dir.threads1" 2>/dev/null || true
        if ((rc != 0)); then
            status="exit $rc, see $dir.log"
        else
            status=$($verify "$verify_dir")
        fi
        seconds=$(python3 -c "print(f'{$end - $start:.3f}')")
        log "$workload $tool run ${ATTEMPT:-$attempt}: ${seconds}s ($status)"
        if [[ $status != ok ]]; then
            printf '%s\t%s\t%s\t%s\n' "$workload" "$tool" "$seconds" "$status" >>"$TIMES"
            return
        fi
        # The CPU of the fastest run is the one reported.
        if [[ -z $best ]] || python3 -c "import sys; sys.exit(0 if $seconds < $best else 1)"; then
            cpu=$(python3 -c "
client = sum(float(x) for x in open('$dir.cpu').read().split())
print(f'{client:.3f}\t{$daemon_after - $daemon_before:.3f}')")
            threads=
            if [[ -s $dir.threads0 && -s $dir.threads1 ]]; then
                threads=$(python3 "$ROOT/bench/thread_cpu.py" split "$dir.threads0" "$dir.threads1" 2>/dev/null || true)
            fi
        fi
        best=$(python3 -c "print(min(float(x) for x in '$best $seconds'.split()))")
    done
    printf '%s\t%s\t%s\tok\n' "$workload" "$tool" "$best" >>"$TIMES"
    printf '%s\t%s\t%s\n' "$workload" "$tool" "$cpu" >>"$CPU"
    [[ -z $threads ]] || printf '%s\t%s\t%s\n' "$workload" "$tool" "$threads" >>"$THREADS"
}

# The socket goes by environment: the CLI reads STASH_SOCKET whether it takes --socket
# before or after the subcommand. Quiet, as the peers run (wget2 -q, curl -s): a JSON line per
# change of 2,000 downloads was a third of the client's CPU, which counts in stash's time.
stash_add() {
    STASH_SOCKET=$SOCKET timeout "$WAIT_LIMIT" "$BIN/stash" add "$@" --wait --quiet
}

# stash_bundles: adds the 40 bundles of $BUNDLES and waits until all 40 are COMPLETED, as an
# app would: one StashClient connection, all adds in flight at once, then state events.
stash_bundles() {
    timeout "$WAIT_LIMIT" "$BIN/stash-bench" --socket "$SOCKET" --bundles "$BUNDLES"
}

# stash_bundles_cli: the same from the shell, 40 `stash add --bundle` then one `stash wait`.
# The adds run side by side because each `stash` is a process of its own (15-30 ms to start,
# connect and say Hello); in a row they would time the CLI's start-up 40 times. Downloading
# starts with the first add either way, and `stash wait` reads each bundle's current state
# first, so a bundle done before the wait begins still counts.
stash_bundles_cli() {
    local list pid ids=() pids=() failed=0
    for list in "$BUNDLES"/*.list; do
        ids+=("$(basename "$list" .list)")
        STASH_SOCKET=$SOCKET "$BIN/stash" add --bundle --id "${ids[-1]}" --from-file "$list" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
    ((failed == 0)) || return 1
    STASH_SOCKET=$SOCKET timeout "$WAIT_LIMIT" "$BIN/stash" wait "${ids[@]}"
}

# run_stash WORKLOAD TOOL PREPARE VERIFY COMMAND...: run_timed for a stash configuration,
# with PREPARE starting its daemon afresh before each run.
run_stash() {
    local workload=$1 tool=$2 prepare=$3 verify=$4
    shift 4
    if [[ -z $BIN ]]; then
        printf '%s\t%s\t\tnot built\n' "$workload" "$tool" >>"$TIMES"
        return
    fi
    # The daemon keeps the files in its data dir, so that is where they are checked.
    PREPARE=$prepare run_timed "$workload" "$tool" "$RUNS/$tool-$workload" "$verify" "$STASH_DATA" "$@"
}

# ---------------------------------------------------------------- daemon start
# info_values EXPR...: values from `stash info --json` on one line, each a Python expression
# over `d` (the whole record) and `v` (its lastVerify).
info_values() {
    local IFS=,
    STASH_SOCKET=$SOCKET "$BIN/stash" info --json |
        python3 -c "import json, sys; d = json.load(sys.stdin); v = d['lastVerify']; print($*)"
}

# The asset files under DIR must be exactly $RECORDS copies of the corpus's tiny.bin.
verify_tiny() {
    local expected total found
    expected=$(awk '$2 == "tiny.bin" {print $1}' "$CORPUS/manifest.sha256")
    total=$(find "$1/assets" -type f | wc -l)
    found=$(find "$1/assets" -type f ! -name '*.part' -print0 | xargs -0 -r sha256sum | cut -d' ' -f1 |
        grep -cx "$expected" || true)
    ((total == RECORDS && found == RECORDS)) ||
        { echo "verify: $found intact copies of tiny.bin and $total files in all under $1/assets, expected $RECORDS"; return; }
    echo ok
}

# populate_start_data: $RECORDS single-file downloads of tiny.bin, all COMPLETED, in
# $START_DATA; the daemon that fetched them is left running. Sets POPULATED to ok or to what
# went wrong (not printed: a daemon started inside $(...) would hold its output open).
POPULATED=
populate_start_data() {
    local list=$OUT/tiny.list completed failed deadline
    rm -rf "$START_DATA"
    # Filling the registry is set-up, not what is measured: the caps are raised to make it short.
    launch_stashd "$START_DATA" --max-parallel 64 --max-connections 64 --max-connections-per-host 64
    wait_socket || { POPULATED="stashd did not start"; return; }
    # One URL on every line, added with --force: the daemon chooses the ids, so each line is a
    # download of its own (without it the same URL is the one download that holds it).
    seq $RECORDS | sed "s|.*|$BASE/tiny.bin|" >"$list"
    STASH_SOCKET=$SOCKET "$BIN/stash" add --force --from-file "$list" >"$OUT/start-add.log" 2>&1 ||
        { POPULATED="stash add --from-file failed, see $OUT/start-add.log"; return; }
    # Polled, not `stash wait`: following 100,000 ids would measure the waiter, and a poll
    # every 2 s costs the daemon nothing it would notice.
    deadline=$(($(date +%s) + 1800))
    while :; do
        # A poll that fails (the daemon busy past the CLI's patience) reads as no progress.
        read -r completed failed < <(info_values 'd["counts"].get("COMPLETED", 0)' 'd["counts"].get("FAILED", 0)') || true
        ((completed == RECORDS)) && break
        ((failed == 0)) || { POPULATED="$failed of $RECORDS downloads FAILED"; return; }
        kill -0 "$STASHD_PID" 2>/dev/null || { POPULATED="stashd died, see $OUT/stashd.log"; return; }
        (($(date +%s) < deadline)) || { POPULATED="only $completed of $RECORDS COMPLETED after 30 min"; return; }
        sleep 2
    done
    POPULATED=ok
}

# bench_start: times a daemon start over $RECORDS COMPLETED records, from exec to the first
# answer on its socket (the socket is bound after the start-up verify, so the verify counts),
# best of $REPEAT. The details of the best start go to $START as `name value` lines.
bench_start() {
    local began populated status attempt seconds best= verify best_verify=
    local ms downloads files findings
    began=$(now)
    : >"$START"
    if [[ -z $BIN || ! -x $BIN/stash-bench ]]; then
        printf 'start100k\tstash\t\tnot built\n' >>"$TIMES"
        return
    fi
    populate_start_data
    status=$POPULATED
    populated=$(now)
    log "start100k: $RECORDS downloads COMPLETED in $(python3 -c "print(f'{$populated - $began:.0f}')") s ($status)"
    # SIGTERM, as a system shutdown would: the registry is persisted and the lock released.
    stop_stashd
    [[ $status == ok ]] && status=$(verify_tiny "$START_DATA")
    if [[ $status != ok ]]; then
        printf 'start100k\tstash\t\t%s\n' "$status" >>"$TIMES"
        return
    fi
    for attempt in $(seq "$REPEAT"); do
        # A restart of the daemon on a running system: its files' inodes stay cached (after a
        # boot they are not: timed below).
        settle 1
        launch_stashd "$START_DATA"
        if ! "$BIN/stash-bench" --socket "$SOCKET" --wait-ready 120 >>"$OUT/stash-bench.log" 2>&1; then
            printf 'start100k\tstash\t\t%s\n' "not ready in 120 s, see $OUT/stashd.log" >>"$TIMES"
            return
        fi
        seconds=$(python3 -c "print(f'{$(now) - $LAUNCHED:.3f}')")
        read -r ms downloads files findings < <(info_values \
            'v["durationMs"]' 'v["downloadsChecked"]' 'v["filesChecked"]' 'len(v["findings"])') || true
        stop_stashd
        status=ok
        # A start that skipped records, or found damage in a data dir known to be intact,
        # would not be the start this workload is about.
        ((downloads == RECORDS)) || status="verify at start checked $downloads downloads, expected $RECORDS"
        ((findings == 0)) || status="verify at start reported $findings findings on intact data"
        log "start100k run $attempt: ${seconds}s to ready, verify ${ms} ms over $downloads downloads ($status)"
        if [[ $status != ok ]]; then
            printf 'start100k\tstash\t%s\t%s\n' "$seconds" "$status" >>"$TIMES"
            return
        fi
        verify=$(printf 'verify_duration_ms %s\nverify_downloads_checked %s\nverify_files_checked %s\nverify_findings %s' \
            "$ms" "$downloads" "$files" "$findings")
        if [[ -z $best ]] || python3 -c "import sys; sys.exit(not $seconds < $best)"; then
            best=$seconds
            best_verify=$verify
        fi
    done
    printf 'start100k\tstash\t%s\tok\n' "$best" >>"$TIMES"
    # The same after a boot: the inodes and folder entries dropped too, so the fast verify's
    # stats read them from disk.
    local cold= cold_ms=
    for attempt in $(seq "$REPEAT"); do
        settle 3
        launch_stashd "$START_DATA"
        "$BIN/stash-bench" --socket "$SOCKET" --wait-ready 120 >>"$OUT/stash-bench.log" 2>&1 || break
        seconds=$(python3 -c "print(f'{$(now) - $LAUNCHED:.3f}')")
        read -r ms < <(info_values 'v["durationMs"]') || true
        stop_stashd
        log "start100k after a boot, run $attempt: ${seconds}s to ready, verify ${ms} ms"
        if [[ -z $cold ]] || python3 -c "import sys; sys.exit(not $seconds < $cold)"; then
            cold=$seconds
            cold_ms=$ms
        fi
    done
    stop_stashd
    {
        [[ -n $cold ]] && printf 'cold_start_s %s\ncold_verify_ms %s\n' "$cold" "$cold_ms"
        echo "$best_verify"
        echo "records $RECORDS"
        echo "starts $REPEAT"
        # settle drops the page cache only where it may: the registry is then read from disk.
        [[ -w /proc/sys/vm/drop_caches ]] && echo "page_cache_dropped 1"
        python3 -c "print(f'populate_s {$populated - $began:.1f}')"
        python3 -c "print(f'part_s {$(now) - $began:.1f}')"
    } >>"$START"
    # 100,000 asset folders hold 800 MB and 200,000 inodes that nothing reads afterwards.
    rm -rf "$START_DATA"
}

# ---------------------------------------------------------------- registry of 100,000
# The scale of the registry: $RECORDS downloads, the first stalled on a server that accepts and
# never answers (bench/stall_server.py) and, with max-parallel 1, the rest QUEUED behind it, as
# an app's library of queued episodes. Measured: a full listing through the C client (pages
# of 1,000, bench/list_bench.c), the daemon's memory per record at rest (over an empty daemon's,
# measured in the same run), and the first answer after a restart (page cache dropped). `name
# value` lines to $REGISTRY; its own data dir, deleted at the end.
REGISTRY=$OUT/registry.txt
REGISTRY_DATA=$OUT/registry100k

# rss_kb FIELD: that line of /proc/<stashd>/status (VmRSS, RssAnon) in kB, 0 without a daemon.
rss_kb() {
    awk -v field="$1:" '$1 == field {print $2}' "/proc/$STASHD_PID/status" 2>/dev/null || echo 0
}

# registry_counts: QUEUED and all downloads, from `stash info --json`.
registry_counts() {
    STASH_SOCKET=$SOCKET "$BIN/stash" info --json |
        python3 -c "import json, sys; c = json.load(sys.stdin)['counts']; print(c.get('QUEUED', 0), sum(c.values()))"
}

bench_registry() {
    local began lib=$OUT/clients-c cc port list=$OUT/registry.list attempt seconds best= queued all empty_rss
    began=$(now)
    : >"$REGISTRY"
    if [[ -z $BIN || ! -x $BIN/stash-bench ]]; then
        printf 'registry\tstash\t\tnot built\n' >>"$TIMES"
        return
    fi
    cc=$(command -v cc || command -v clang || echo /opt/swift/usr/bin/clang)
    if ! make -s -C "$ROOT/clients/c" BUILD="$lib" all >>"$OUT/clients.log" 2>&1 ||
        ! "$cc" -O2 -o "$OUT/list_bench" "$ROOT/bench/list_bench.c" \
            $(PKG_CONFIG_PATH=$lib/uninstalled pkg-config --cflags --libs stash-client) -Wl,-rpath,"$lib" \
            2>>"$OUT/clients.log"; then
        printf 'registry\tstash\t\tcannot build bench/list_bench.c, see %s\n' "$OUT/clients.log" >>"$TIMES"
        return
    fi
    # What the daemon takes with no record, to tell the records' share from its own.
    rm -rf "$OUT/registry-empty"
    launch_stashd "$OUT/registry-empty"
    wait_socket && "$BIN/stash-bench" --socket "$SOCKET" --wait-ready 60 >>"$OUT/stash-bench.log" 2>&1
    sleep 1
    empty_rss=$(rss_kb VmRSS)
    stop_stashd
    rm -rf "$OUT/registry-empty"

    python3 "$ROOT/bench/stall_server.py" >"$OUT/stall.port" &
    STALL_PID=$!
    for _ in $(seq 50); do [[ -s $OUT/stall.port ]] && break; sleep 0.1; done
    port=$(cat "$OUT/stall.port")
    rm -rf "$REGISTRY_DATA"
    launch_stashd "$REGISTRY_DATA" --max-parallel 1
    if ! wait_socket; then
        printf 'registry\tstash\t\tstashd did not start, see %s\n' "$OUT/stashd.log" >>"$TIMES"
        return
    fi
    # The head waits on the silent server for the whole run, not the default 30 s before a retry.
    STASH_SOCKET=$SOCKET "$BIN/stash" config set low-speed-time 3600 >/dev/null
    # --force: one URL for all, each line a download of its own with an id the daemon chooses.
    seq $RECORDS | sed "s|.*|http://127.0.0.1:$port/stalled|" >"$list"
    if ! STASH_SOCKET=$SOCKET "$BIN/stash" add --force --from-file "$list" >"$OUT/registry-add.log" 2>&1; then
        printf 'registry\tstash\t\tstash add --from-file failed, see %s\n' "$OUT/registry-add.log" >>"$TIMES"
        return
    fi
    log "registry: $RECORDS downloads added in $(python3 -c "print(f'{$(now) - $began:.0f}')") s"
    python3 -c "print(f'populate_s {$(now) - $began:.1f}')" >>"$REGISTRY"
    stop_stashd
    for attempt in $(seq "$REPEAT"); do
        settle 1
        launch_stashd "$REGISTRY_DATA" --max-parallel 1
        if ! "$BIN/stash-bench" --socket "$SOCKET" --wait-ready 120 >>"$OUT/stash-bench.log" 2>&1; then
            printf 'registry\tstash\t\tnot ready in 120 s, see %s\n' "$OUT/stashd.log" >>"$TIMES"
            return
        fi
        seconds=$(python3 -c "print(f'{$(now) - $LAUNCHED:.3f}')")
        log "registry: first answer $seconds s after the start (run $attempt)"
        if [[ -z $best ]] || python3 -c "import sys; sys.exit(not $seconds < $best)"; then best=$seconds; fi
        ((attempt == REPEAT)) || stop_stashd
    done
    # The last daemon, at rest: the registry as built, then its memory, then the listings.
    read -r queued all < <(registry_counts) || true
    if ((all != RECORDS || queued < RECORDS - 1)); then
        printf 'registry\tstash\t%s\t%s\n' "$best" "the registry holds $all downloads, $queued QUEUED; expected $RECORDS, all but one QUEUED ($(STASH_SOCKET=$SOCKET "$BIN/stash" info --json | python3 -c "import json, sys; print(json.load(sys.stdin)['counts'])"))" >>"$TIMES"
        return
    fi
    sleep 2
    {
        echo "records $RECORDS"
        echo "first_answer_s $best"
        echo "starts $REPEAT"
        [[ -w /proc/sys/vm/drop_caches ]] && echo "page_cache_dropped 1"
        echo "rss_kb $(rss_kb VmRSS)"
        echo "rss_anon_kb $(rss_kb RssAnon)"
        echo "rss_empty_kb $empty_rss"
    } >>"$REGISTRY"
    if ! "$OUT/list_bench" "$SOCKET" "$RECORDS" 1000 3 >>"$REGISTRY" 2>>"$OUT/clients.log"; then
        printf 'registry\tstash\t%s\t%s\n' "$best" "list_bench failed, see $OUT/clients.log" >>"$TIMES"
        return
    fi
    stop_stashd
    printf 'registry\tstash\t%s\tok\n' "$best" >>"$TIMES"
    python3 -c "print(f'part_s {$(now) - $began:.1f}')" >>"$REGISTRY"
    kill "$STALL_PID" 2>/dev/null || true
    wait "$STALL_PID" 2>/dev/null || true
    STALL_PID=
    rm -rf "$REGISTRY_DATA"
}

# ---------------------------------------------------------------- HLS
# hls_expected NAME: the manifest's line for NAME (v720, ...): segments, bytes, and the SHA-256
# of its segments concatenated in playlist order.
hls_expected() { awk -v name="$1" '$1 == name {print $2, $3, $4}' "$HLS/manifest.txt"; }

# media_uris PLAYLIST: the segment URIs of a media playlist, in order.
media_uris() { grep -v '^#' "$1" | grep -v '^[[:space:]]*$'; }

# joined_sha256 PLAYLIST: SHA-256 of the segments PLAYLIST lists, concatenated in its order.
joined_sha256() {
    local folder files
    folder=$(dirname "$1")
    mapfile -t files < <(media_uris "$1")
    ((${#files[@]} > 0)) || { echo none; return; }
    (cd "$folder" && cat "${files[@]}") | sha256sum | cut -d' ' -f1
}

# The stash package under DATA/assets/hls must hold every segment of the 720p variant, exactly
# (bytes and SHA-256 of them all in playlist order), no part files, and both subtitle tracks
# with the source's cues.
verify_hls_stash() {
    local pkg=$1/assets/hls segments bytes digest files on_disk total lang
    read -r segments bytes digest < <(hls_expected "$HLS_VARIANT")
    [[ -f $pkg/master.m3u8 && -f $pkg/video/index.m3u8 ]] || { echo "verify: no package playlists under $pkg"; return; }
    mapfile -t files < <(media_uris "$pkg/video/index.m3u8")
    ((${#files[@]} == segments)) || { echo "verify: the package lists ${#files[@]} segments, expected $segments"; return; }
    on_disk=$(find "$pkg/video" -type f -name '*.ts' | wc -l)
    ((on_disk == segments)) || { echo "verify: $on_disk segment files in $pkg/video, expected $segments"; return; }
    [[ -z $(find "$pkg" -name '*.part' -print -quit) ]] || { echo "verify: part files left in $pkg"; return; }
    total=$(cd "$pkg/video" && stat -c %s "${files[@]}" | awk '{ t += $1 } END { print t + 0 }')
    ((total == bytes)) || { echo "verify: the package's segments hold $total bytes, expected $bytes"; return; }
    [[ $(joined_sha256 "$pkg/video/index.m3u8") == "$digest" ]] ||
        { echo "verify: the package's segments differ from the source's"; return; }
    for lang in en es; do
        [[ -f $pkg/subtitles/$lang/index.m3u8 ]] || { echo "verify: no $lang subtitles in $pkg"; return; }
        [[ $(joined_sha256 "$pkg/subtitles/$lang/index.m3u8") == "$(joined_sha256 "$HLS/subs/$lang/index.m3u8")" ]] ||
            { echo "verify: the package's $lang subtitles differ from the source's"; return; }
    done
    echo ok
}

# yt-dlp with --hls-use-mpegts joins the segments unchanged: its one media file must be the
# 720p segments byte for byte; each subtitle track must reach the stream's last cue.
verify_hls_ytdlp() {
    local segments bytes digest files lang last
    read -r segments bytes digest < <(hls_expected "$HLS_VARIANT")
    mapfile -t files < <(find "$1" -type f ! -name '*.vtt' ! -name '*.log')
    ((${#files[@]} == 1)) || { echo "verify: ${#files[@]} media files under $1, expected 1"; return; }
    (($(stat -c %s "${files[0]}") == bytes)) ||
        { echo "verify: ${files[0]} holds $(stat -c %s "${files[0]}") bytes, expected $bytes"; return; }
    [[ $(sha256sum "${files[0]}" | cut -d' ' -f1) == "$digest" ]] ||
        { echo "verify: ${files[0]} differs from the 720p segments joined"; return; }
    last=$((HLS_SECONDS / 2))
    for lang in en es; do
        grep -Eq "^(Line|Línea) $last\$" "$1"/*."$lang".vtt 2>/dev/null ||
            { echo "verify: no complete $lang subtitles under $1"; return; }
    done
    echo ok
}

# ffmpeg -c copy rewrites the container: its out.ts must last the stream's length (+-2 s), hold
# the 720p picture and be within 5% of the segments' bytes.
verify_hls_ffmpeg() {
    local segments bytes digest file=$1/out.ts size probe
    read -r segments bytes digest < <(hls_expected "$HLS_VARIANT")
    [[ -f $file ]] || { echo "verify: no $file"; return; }
    size=$(stat -c %s "$file")
    python3 -c "import sys; sys.exit(not 0.95 * $bytes <= $size <= 1.05 * $bytes)" ||
        { echo "verify: $file holds $size bytes, expected about $bytes"; return; }
    # JSON: the CSV form repeats a stream once per program.
    probe=$(ffprobe -v error -print_format json -show_entries stream=codec_type,height:format=duration "$file" |
        python3 -c "
import json, sys
d = json.load(sys.stdin)
heights = sorted({s['height'] for s in d.get('streams', []) if s.get('codec_type') == 'video'})
print(','.join(map(str, heights)) or 'none', d.get('format', {}).get('duration', 'none'))")
    python3 -c "
import sys
height, duration = '$probe'.split()
sys.exit(not (height == '$HLS_HEIGHT' and duration != 'none' and abs(float(duration) - $HLS_SECONDS) <= 2))" ||
        { echo "verify: ffprobe reads '$probe' (height duration) from $file"; return; }
    echo ok
}

stash_hls() {
    stash_add "$BASE/hls/master.m3u8" --max-height $HLS_HEIGHT --subtitles en,es --segments 8 --id hls
}

# bench_hls: the 720p variant and both subtitle tracks by stash and yt-dlp (8 segments at
# once each), the 720p media playlist by ffmpeg -c copy (one segment at a time, no subtitles).
bench_hls() {
    local master=$BASE/hls/master.m3u8 segments bytes digest
    install_ytdlp
    make_hls
    read -r segments bytes digest < <(hls_expected "$HLS_VARIANT")
    mapfile -t SOURCES < <(find "$HLS" -type f)
    cat "${SOURCES[@]}" >/dev/null
    printf 'seconds %s\nsegments %s\nbytes %s\nsubtitle_segments %s\n' "$HLS_SECONDS" "$segments" "$bytes" \
        "$(find "$HLS/subs" -name '*.vtt' | wc -l)" >"$OUT/hls.txt"
    run_stash hls stash start_stashd verify_hls_stash stash_hls
    stop_stashd
    if [[ -n $YTDLP ]]; then
        # --hls-use-mpegts: the joined segments stay MPEG-TS (else yt-dlp remuxes them with ffmpeg
        # after the download), so the output can be checked byte for byte.
        run_timed hls yt-dlp "$RUNS/yt-dlp-hls" verify_hls_ytdlp "$RUNS/yt-dlp-hls" \
            "$YTDLP" -q --no-progress --no-cache-dir -N 8 --hls-use-mpegts -f "b[height=$HLS_HEIGHT]" \
            --write-subs --sub-langs en,es -o 'out.%(ext)s' "$master"
    else
        printf 'hls\tyt-dlp\t\tnot installed\n' >>"$TIMES"
    fi
    run_timed hls ffmpeg "$RUNS/ffmpeg-hls" verify_hls_ffmpeg "$RUNS/ffmpeg-hls" \
        ffmpeg -nostdin -v error -i "$BASE/hls/$HLS_VARIANT/index.m3u8" -map 0 -c copy out.ts
}

# ---------------------------------------------------------------- DASH
# dash_expected NAME: the manifest's line for NAME (v720 or audio): segments, bytes, and the
# SHA-256 of the initialization segment and the media segments joined in order.
dash_expected() { awk -v name="$1" '$1 == name {print $2, $3, $4}' "$DASH/manifest.txt"; }

# joined_folder DIR: SHA-256 of DIR's init.* and seg*.* joined in order (the package's names sort).
joined_folder() { (cd "$1" && cat init.* $(ls seg*.* | sort)) | sha256sum | cut -d' ' -f1; }

# The stash package under DATA/assets/dash must hold the 720p representation and the audio,
# each exactly (bytes and SHA-256 of the init and media segments joined), its local MPD, and no
# part files.
verify_dash_stash() {
    local pkg=$1/assets/dash name folder segments bytes digest on_disk
    [[ -f $pkg/manifest.mpd ]] || { echo "verify: no manifest.mpd under $pkg"; return; }
    [[ -z $(find "$pkg" -name '*.part' -print -quit) ]] || { echo "verify: part files left in $pkg"; return; }
    for name in v720 audio; do
        folder=$pkg/$([[ $name == v720 ]] && echo video || echo audio/und)
        read -r segments bytes digest < <(dash_expected "$name")
        on_disk=$(find "$folder" -type f -name 'seg*' | wc -l)
        ((on_disk == segments)) || { echo "verify: $on_disk segments in $folder, expected $segments"; return; }
        (($(cat "$folder"/* | wc -c) == bytes)) || { echo "verify: $folder holds $(cat "$folder"/* | wc -c) bytes, expected $bytes"; return; }
        [[ $(joined_folder "$folder") == "$digest" ]] || { echo "verify: $folder differs from the source's $name"; return; }
    done
    echo ok
}

# yt-dlp writes each chosen representation's initialization and media segments into one file,
# unchanged with --fixup never: the video's and the audio's must be the source's byte for byte.
verify_dash_ytdlp() {
    local name file segments bytes digest
    for name in v720 audio; do
        file=$(find "$1" -type f -name "out.*.$([[ $name == v720 ]] && echo mp4 || echo m4a)" | head -1)
        read -r segments bytes digest < <(dash_expected "$name")
        [[ -n $file && $(sha256sum "$file" | cut -d' ' -f1) == "$digest" ]] || { echo "verify: yt-dlp's $name file under $1 differs from the source's"; return; }
    done
    echo ok
}

stash_dash() {
    stash_add "$BASE/dash/manifest.mpd" --max-height 720 --segments 8 --id dash
}

# bench_dash: the 720p representation and the audio by stash and yt-dlp, 8 segments at once each.
bench_dash() {
    local segments bytes digest audio_bytes
    install_ytdlp
    make_dash
    read -r segments bytes digest < <(dash_expected v720)
    read -r _ audio_bytes _ < <(dash_expected audio)
    mapfile -t SOURCES < <(find "$DASH" -type f)
    cat "${SOURCES[@]}" >/dev/null
    printf 'seconds %s\nsegments %s\nbytes %s\n' "$DASH_SECONDS" "$segments" "$((bytes + audio_bytes))" >"$OUT/dash.txt"
    run_stash dash stash start_stashd verify_dash_stash stash_dash
    stop_stashd
    if [[ -n $YTDLP ]]; then
        run_timed dash yt-dlp "$RUNS/yt-dlp-dash" verify_dash_ytdlp "$RUNS/yt-dlp-dash" \
            "$YTDLP" -q --no-progress --no-cache-dir -N 8 --fixup never -f "bv[height=720],ba" -o 'out.%(format_id)s.%(ext)s' \
            "$BASE/dash/manifest.mpd"
    else
        printf 'dash\tyt-dlp\t\tnot installed\n' >>"$TIMES"
    fi
}

# ---------------------------------------------------------------- noisy neighbour
# Another program holds NOISY_MB of unwritten data on the data dir's file system (a dd without
# sync) while stash completes NOISY_FILES downloads of 64 KiB (one `stash add --from-file
# --wait`, 16 at once); then the same files by curl, made durable with `sync -d` (fdatasync of
# each), on the same noise. For each: the time, and how much was written to disk meanwhile
# (/proc/vmstat nr_written) against the noise that was waiting: a tool that syncs the whole file
# system writes the noise out, and waits for it.
#
# As root the part runs on an ext4 file system of its own (a file loop-mounted under bench/out):
# on a shared machine any other program's syncfs of the root file system (a test's daemon, a
# build) would write the noise out too, whatever the tool measured did.
NOISY_MB=1200
NOISY_FILES=20
NOISY=$OUT/noisy.txt
NOISY_IMAGE=$OUT/noisyfs.img
NOISY_MOUNT=$OUT/noisyfs
NOISY_LOOP=
# Where the noise, the daemon's data dir and curl's files go: the loop file system, or $OUT.
NOISY_ROOT=$OUT
# vm.dirty_* as they were (key=value), written back at exit.
SYSCTLS_SAVED=()

mount_noisy_fs() {
    NOISY_ROOT=$OUT
    if ((EUID != 0)) || ! command -v mkfs.ext4 >/dev/null || ! command -v losetup >/dev/null; then
        log "noisy: not root (or no mkfs.ext4, losetup): the part runs on $OUT's file system, where other programs' syncs write the noise out too"
        return
    fi
    unmount_noisy_fs
    truncate -s 3G "$NOISY_IMAGE" && mkfs.ext4 -q -F "$NOISY_IMAGE" || return 0
    # Direct I/O: the loop device's writes skip the root file system's page cache.
    NOISY_LOOP=$(losetup -f --show --direct-io=on "$NOISY_IMAGE" 2>/dev/null || losetup -f --show "$NOISY_IMAGE") ||
        { NOISY_LOOP=; return 0; }
    mkdir -p "$NOISY_MOUNT"
    if mount "$NOISY_LOOP" "$NOISY_MOUNT"; then
        NOISY_ROOT=$NOISY_MOUNT
    else
        losetup -d "$NOISY_LOOP"
        NOISY_LOOP=
    fi
}

unmount_noisy_fs() {
    mountpoint -q "$NOISY_MOUNT" 2>/dev/null && umount "$NOISY_MOUNT"
    [[ -n $NOISY_LOOP ]] && losetup -d "$NOISY_LOOP"
    NOISY_LOOP=
    rm -f "$NOISY_IMAGE"
}

# The writeback thresholds and age, set so the noise stays unwritten for the whole part: the
# background flusher starts at dirty_background (10 % of memory by default, so less than the
# noise on a small machine) and writes out data older than dirty_expire (30 s).
hold_noise_in_memory() {
    local key
    [[ -w /proc/sys/vm/dirty_expire_centisecs ]] || return 0
    for key in dirty_background_ratio dirty_background_bytes dirty_ratio dirty_bytes dirty_expire_centisecs; do
        SYSCTLS_SAVED+=("$key=$(cat /proc/sys/vm/$key)")
    done
    echo $((2 * NOISY_MB << 20)) >/proc/sys/vm/dirty_background_bytes
    echo $((4 * NOISY_MB << 20)) >/proc/sys/vm/dirty_bytes
    echo 60000 >/proc/sys/vm/dirty_expire_centisecs
}

# A ratio and its _bytes twin exclude each other (writing one zeroes the other): the ratio is
# written back first, then the bytes only where they were in force.
restore_sysctls() {
    local saved key value
    for saved in "${SYSCTLS_SAVED[@]}"; do
        key=${saved%%=*} value=${saved#*=}
        [[ $key == *_bytes && $value == 0 ]] && continue
        echo "$value" >"/proc/sys/vm/$key" || log "cannot restore vm.$key to $value"
    done
    SYSCTLS_SAVED=()
}

meminfo_mb() { awk -v key="$1:" '$1 == key { printf "%d\n", $2 / 1024 }' /proc/meminfo; }
written_mb() { awk '$1 == "nr_written" { printf "%d\n", $2 * 4096 / 1048576 }' /proc/vmstat; }

# The first NOISY_FILES small corpus files, intact, under DIR.
verify_noisy() {
    local found
    found=$(comm -12 \
        <(grep ' small/' "$CORPUS/manifest.sha256" | head -n "$NOISY_FILES" | cut -d' ' -f1 | sort -u) \
        <(find "$1" -type f ! -name '*.part' -size 64k -print0 | xargs -0 -r sha256sum | cut -d' ' -f1 | sort -u) |
        wc -l)
    ((found == NOISY_FILES)) || { echo "verify: $found of $NOISY_FILES files intact under $1"; return; }
    echo ok
}

start_stashd_noisy() {
    rm -rf "$NOISY_ROOT/stashdata"
    launch_stashd "$NOISY_ROOT/stashdata" --max-parallel $PARALLEL
    wait_socket
}
stash_noisy() { stash_add --from-file "$OUT/noisy.list"; }
curl_noisy() { curl -sf --parallel --parallel-max $PARALLEL -K "$OUT/noisy.curl" && sync -d f*.bin; }

# noisy_run TOOL PREPARE DIR VERIFY_DIR COMMAND...: $REPEAT runs of COMMAND in an emptied DIR,
# each on fresh noise; records the fastest run and the most written during any run.
noisy_run() {
    local tool=$1 prepare=$2 dir=$3 verify_dir=$4 noise=$NOISY_ROOT/noise
    local attempt start end dirty_before dirty_after written rc status seconds best= most=0 before_best after_best
    shift 4
    for attempt in $(seq "$REPEAT"); do
        rm -rf "$dir" && mkdir -p "$dir"
        "$prepare" || { printf 'noisy\t%s\t\tcould not prepare the run\n' "$tool" >>"$TIMES"; return; }
        settle
        dd if=/dev/zero of="$noise" bs=1M count=$NOISY_MB status=none
        dirty_before=$(meminfo_mb Dirty)
        written=$(written_mb)
        rc=0
        start=$(now)
        (cd "$dir" && "$@" >"$dir.log" 2>&1) || rc=$?
        end=$(now)
        dirty_after=$(meminfo_mb Dirty)
        written=$(($(written_mb) - written))
        # Deleted while still dirty: its pages are dropped, not written.
        rm -f "$noise"
        if ((rc != 0)); then status="exit $rc, see $dir.log"; else status=$(verify_noisy "$verify_dir"); fi
        ((dirty_before * 10 >= NOISY_MB * 9)) || status="the noise was not held unwritten (Dirty $dirty_before MB)"
        seconds=$(python3 -c "print(f'{$end - $start:.3f}')")
        log "noisy $tool run $attempt: ${seconds}s, Dirty $dirty_before -> $dirty_after MB, $written MB written ($status)"
        if [[ $status != ok ]]; then
            printf 'noisy\t%s\t%s\t%s\n' "$tool" "$seconds" "$status" >>"$TIMES"
            return
        fi
        ((written > most)) && most=$written
        if [[ -z $best ]] || python3 -c "import sys; sys.exit(0 if $seconds < $best else 1)"; then
            best=$seconds before_best=$dirty_before after_best=$dirty_after
        fi
    done
    printf 'noisy\t%s\t%s\tok\n' "$tool" "$best" >>"$TIMES"
    printf '%s_dirty_before_mb %s\n%s_dirty_after_mb %s\n%s_written_mb %s\n' \
        "$tool" "$before_best" "$tool" "$after_best" "$tool" "$most" >>"$NOISY"
}

bench_noisy() {
    local available i
    : >"$NOISY"
    available=$(meminfo_mb MemAvailable)
    if ((available < 5 * NOISY_MB)); then
        printf 'noisy\tstash\t\tnot measured: %s MB of memory available, %s needed\n' "$available" $((5 * NOISY_MB)) >>"$TIMES"
        return
    fi
    for i in $(seq -f '%04g' 0 $((NOISY_FILES - 1))); do echo "$BASE/small/f$i.bin"; done >"$OUT/noisy.list"
    for i in $(seq -f '%04g' 0 $((NOISY_FILES - 1))); do
        printf 'url = "%s"\noutput = "f%s.bin"\n' "$BASE/small/f$i.bin" "$i"
    done >"$OUT/noisy.curl"
    mount_noisy_fs
    printf 'noise_mb %s\nfiles %s\nown_fs %s\n' $NOISY_MB $NOISY_FILES "$([[ $NOISY_ROOT == "$NOISY_MOUNT" ]] && echo 1 || echo 0)" >>"$NOISY"
    hold_noise_in_memory
    if [[ -n $BIN ]]; then
        noisy_run stash start_stashd_noisy "$RUNS/stash-noisy" "$NOISY_ROOT/stashdata" stash_noisy
        stop_stashd
    else
        printf 'noisy\tstash\t\tnot built\n' >>"$TIMES"
    fi
    noisy_run curl+sync : "$NOISY_ROOT/curl" "$NOISY_ROOT/curl" curl_noisy
    restore_sysctls
    rm -rf "$NOISY_ROOT/curl" "$NOISY_ROOT/stashdata"
    unmount_noisy_fs
}

# ---------------------------------------------------------------- clients
# bench_clients: GetDownload from the Swift (stash-bench), C (bench/client_bench.c over
# libstash-client) and Python (bench/client_bench.py over stash_client) clients on one daemon
# holding one record, and the socketpair floor (bench/pingpong.c) measured in the same run.
# C links the library as an app does, through its stash-client.pc.
CLIENT_PYTHON=${CLIENT_PYTHON:-/usr/bin/python3}
bench_clients() {
    local lib=$OUT/clients-c cc probe=bench-probe
    cc=$(command -v cc || command -v clang || echo /opt/swift/usr/bin/clang)
    : >"$OUT/clients.txt"
    start_stashd
    # A record that ends at once (nginx answers 404), so nothing runs behind the calls.
    "$BIN/stash" add --socket "$SOCKET" "$BASE/$probe-missing" --id $probe >/dev/null
    make -s -C "$ROOT/clients/c" BUILD="$lib" all >>"$OUT/clients.log" 2>&1 &&
        "$cc" -O2 -o "$OUT/client_bench" "$ROOT/bench/client_bench.c" \
            $(PKG_CONFIG_PATH=$lib/uninstalled pkg-config --cflags --libs stash-client) -Wl,-rpath,"$lib" -lpthread \
            2>>"$OUT/clients.log" || log "cannot build libstash-client or bench/client_bench.c; see $OUT/clients.log"
    if "$cc" -O2 -o "$OUT/pingpong" "$ROOT/bench/pingpong.c" 2>>"$OUT/clients.log"; then
        "$OUT/pingpong" >>"$OUT/clients.txt" || log "pingpong failed"
    fi
    "$BIN/stash-bench" --socket "$SOCKET" --id $probe --clients $PARALLEL --seconds 3 2>>"$OUT/clients.log" |
        grep '^getdownload_' | sed 's/^/swift_/' >>"$OUT/clients.txt" || log "stash-bench failed; see $OUT/clients.log"
    [[ -x $OUT/client_bench ]] && { "$OUT/client_bench" "$SOCKET" $probe 3 $PARALLEL >>"$OUT/clients.txt" 2>>"$OUT/clients.log" ||
        log "client_bench failed; see $OUT/clients.log"; }
    if "$CLIENT_PYTHON" -c 'import google.protobuf' 2>/dev/null; then
        "$CLIENT_PYTHON" "$ROOT/bench/client_bench.py" "$SOCKET" $probe 3 >>"$OUT/clients.txt" 2>>"$OUT/clients.log" ||
            log "client_bench.py failed; see $OUT/clients.log"
    else
        log "no protobuf for $CLIENT_PYTHON (apt-get install python3-protobuf); the Python client is not measured"
    fi
    # The C calls in two more set-ups. Pinned: daemon and client on CPU 0, against the floor
    # pinned the same way; no idle CPU has to be woken, so what is left is each side's work.
    # Busy polls: free-running, with stashd --busy-poll-us 2000 and the client's
    # stash_client_set_busy_poll(200), against the free-running floor above.
    if [[ -x $OUT/client_bench ]]; then
        if command -v taskset >/dev/null; then
            taskset -c 0 "$OUT/pingpong" | sed 's/^/pinned_/' >>"$OUT/clients.txt" || log "pinned pingpong failed"
            taskset -a -cp 0 "$STASHD_PID" >/dev/null
            taskset -c 0 "$OUT/client_bench" "$SOCKET" $probe 0.5 1 2>>"$OUT/clients.log" | grep '_p[59]' |
                sed 's/^c_/c_pinned_/' >>"$OUT/clients.txt" || log "pinned client_bench failed; see $OUT/clients.log"
        fi
        launch_stashd "$STASH_DATA" --max-parallel $PARALLEL --busy-poll-us 2000
        if wait_socket; then
            "$OUT/client_bench" "$SOCKET" $probe 3 $PARALLEL 200 2>>"$OUT/clients.log" | grep '_getdownload_' |
                sed 's/^c_/c_busypoll_/' >>"$OUT/clients.txt" || log "busy-poll client_bench failed; see $OUT/clients.log"
        fi
    fi
    stop_stashd
}

# ---------------------------------------------------------------- main
main() {
    local began
    began=$(now)
    install_missing
    mkdir -p "$OUT"
    want_corpus && make_corpus
    discard "$RUNS" && mkdir -p "$RUNS"
    : >"$TIMES"
    : >"$CPU"
    : >"$THREADS"
    : >"$CONTROL"
    : >"$START"
    : >"$OUT/hls.txt"
    : >"$OUT/stashd.log"
    start_nginx
    find_stash

    if want_corpus; then
        SOURCES=("$CORPUS/big.bin" "$CORPUS"/small/*)
        # Read the source once so the first tool does not pay for a cold page cache.
        cat "$CORPUS/big.bin" >/dev/null
    fi

    local big=$BASE/big.bin list=$OUT/small.list curlcfg=$OUT/small.curl
    for i in $(seq -f '%04g' 0 1999); do echo "$BASE/small/f$i.bin"; done >"$list"
    for i in $(seq -f '%04g' 0 1999); do printf 'url = "%s"\noutput = "f%s.bin"\n' "$BASE/small/f$i.bin" "$i"; done >"$curlcfg"

    if want 1GiB; then
        log "workload 1: 1 GiB, one connection"
        run_timed 1GiB curl "$RUNS/curl-1GiB" verify_big "$RUNS/curl-1GiB" curl -sf -o big.bin "$big"
        run_timed 1GiB wget2 "$RUNS/wget2-1GiB" verify_big "$RUNS/wget2-1GiB" wget2 -q -O big.bin "$big"
        run_timed 1GiB aria2c "$RUNS/aria2c-1GiB" verify_big "$RUNS/aria2c-1GiB" \
            aria2c -q -x1 -s1 --file-allocation=none --allow-overwrite=true -o big.bin "$big"
        run_stash 1GiB stash start_stashd verify_big stash_add "$big" --id big
        stop_stashd
    fi

    if want 2000x64KiB; then
        log "workload 2: 2,000 x 64 KiB, $PARALLEL in parallel"
        local round
        # In rounds, one run of each tool a round (`interleaved`): the last round's daemon
        # stays up for the control plane below.
        for round in $(seq "$REPEAT"); do
            interleaved run_timed 2000x64KiB curl "$RUNS/curl-2000x64KiB" verify_many "$RUNS/curl-2000x64KiB" \
                curl -sf --parallel --parallel-max $PARALLEL -K "$curlcfg"
            interleaved run_timed 2000x64KiB wget2 "$RUNS/wget2-2000x64KiB" verify_many "$RUNS/wget2-2000x64KiB" \
                wget2 -q --max-threads=$PARALLEL -i "$list"
            interleaved run_timed 2000x64KiB aria2c "$RUNS/aria2c-2000x64KiB" verify_many "$RUNS/aria2c-2000x64KiB" \
                aria2c -q -j$PARALLEL --file-allocation=none --allow-overwrite=true -i "$list"
            interleaved run_stash 2000x64KiB stash start_stashd verify_many stash_add --from-file "$list"
            interleaved bench_floor
            interleaved bench_download_floor 2000x64KiB "$list"
            ((round == REPEAT)) || stop_stashd
        done
        python3 "$ROOT/bench/best_rows.py" 2000x64KiB "$TIMES" "$CPU" "$THREADS"

        # The control plane is measured on the daemon that holds the 2,000 downloads, so lookups
        # run against a registry of realistic size.
        if [[ -n $STASHD_PID && -x $BIN/stash-bench ]]; then
            log "control plane: GetDownload latency and throughput"
            "$BIN/stash-bench" --socket "$SOCKET" --id bench-probe --uri "$BASE/small/f0000.bin" \
                --clients $PARALLEL --seconds 3 >"$CONTROL" 2>"$OUT/stash-bench.log" ||
                { log "stash-bench failed; see $OUT/stash-bench.log"; : >"$CONTROL"; }
            # The floor under those round trips, measured now: two processes passing one byte
            # over a socketpair (bench/pingpong.c), free-running and, below, pinned.
            local cc
            cc=$(command -v cc || command -v clang || echo /opt/swift/usr/bin/clang)
            if "$cc" -O2 -o "$OUT/pingpong" "$ROOT/bench/pingpong.c" 2>>"$OUT/stash-bench.log"; then
                "$OUT/pingpong" >>"$CONTROL" || log "pingpong failed"
                command -v taskset >/dev/null && taskset -c 0 "$OUT/pingpong" | sed 's/^/pinned_/' >>"$CONTROL"
            else
                log "cannot compile bench/pingpong.c; the ratio to it is not measured"
            fi
            # On an idle VM, waking the other (idle) virtual CPU costs tens of microseconds per
            # hop, and a round trip has two. Measured again with daemon and client on one CPU,
            # reported as a separate line, so both numbers are on record.
            if command -v taskset >/dev/null && [[ -s $CONTROL ]]; then
                log "control plane again, daemon and client pinned to CPU 0"
                taskset -a -cp 0 "$STASHD_PID" >/dev/null
                taskset -c 0 "$BIN/stash-bench" --socket "$SOCKET" --id bench-probe --uri "$BASE/small/f0000.bin" \
                    --clients $PARALLEL --seconds 3 2>>"$OUT/stash-bench.log" | sed 's/^/pinned_/' >>"$CONTROL" ||
                    log "pinned stash-bench failed; see $OUT/stash-bench.log"
            fi
            # And free to run anywhere, with the daemon keeping a CPU awake between calls
            # (`stashd --busy-poll-us`, off by default) and the latency client watching its
            # socket for each answer (StashClient's busyPollMicroseconds), over the same
            # 2,000 downloads.
            if [[ -s $CONTROL ]]; then
                log "control plane again, stashd --busy-poll-us 2000, client busy poll 200 us"
                launch_stashd "$STASH_DATA" --max-parallel $PARALLEL --busy-poll-us 2000
                if wait_socket; then
                    "$BIN/stash-bench" --socket "$SOCKET" --id bench-probe --uri "$BASE/small/f0000.bin" \
                        --clients $PARALLEL --seconds 3 --busy-poll-us 200 2>>"$OUT/stash-bench.log" | sed 's/^/busypoll_/' >>"$CONTROL" ||
                        log "busy-poll stash-bench failed; see $OUT/stash-bench.log"
                fi
            fi
        fi
        stop_stashd
    fi

    if want 2000x64KiB-https; then
        log "workload 2b: 2,000 x 64 KiB over HTTPS (TLS, HTTP/2), $PARALLEL in parallel"
        bench_https
    fi

    if want bundles; then
        # The peers are not run again: for them the 2,000 files are the same work whether or not
        # stash groups them, so workload 2's times are the comparison (report.py says so).
        log "workload 3: the same 2,000 files as 40 bundles of 50"
        rm -rf "$BUNDLES" && mkdir -p "$BUNDLES"
        seq 0 1999 | awk -v dir="$BUNDLES" -v base="$BASE" \
            '{ printf "%s/small/f%04d.bin\tpages/f%04d.bin\n", base, $1, $1 > sprintf("%s/b%02d.list", dir, int($1 / 50)) }'
        run_stash bundles stash-3x5 start_stashd_3x5 verify_many stash_bundles
        run_stash bundles stash-4x16 start_stashd_4x16 verify_many stash_bundles
        run_stash bundles stash-4x16-cli start_stashd_4x16 verify_many stash_bundles_cli
        stop_stashd
    fi

    if want start100k; then
        log "workload 4: daemon start and fast verify over $RECORDS records"
        bench_start
    fi

    : >"$REGISTRY"
    if want registry; then
        log "workload 4b: a registry of $RECORDS downloads, QUEUED behind a stalled one"
        bench_registry
    fi

    if want hls; then
        log "workload 5: HLS, the 720p variant of a 10-minute stream, with two subtitle tracks"
        bench_hls
    fi

    : >"$OUT/dash.txt"
    if want dash; then
        log "workload 5b: DASH, the 720p representation and the audio of a 10-minute presentation"
        bench_dash
    fi

    : >"$OUT/clients.txt"
    if want clients && [[ -n $BIN ]]; then
        log "workload 7: GetDownload through the Swift, C and Python clients"
        bench_clients
    fi

    : >"$OUT/noisy.txt"
    if want noisy; then
        log "workload 8: $NOISY_FILES x 64 KiB while another process holds $NOISY_MB MB unwritten on the same disk"
        bench_noisy
    fi

    : >"$OUT/memory.txt"
    if want memory && [[ -n $BIN ]]; then
        log "workload 6: daemon memory under clients that never read and a plan of 64 huge variants"
        python3 "$ROOT/bench/memory.py" "$BIN" "$OUT" >/dev/null ||
            log "memory: a scenario failed or went over the bound; see $OUT/memory.txt and $OUT/memory-stashd.log"
    fi

    echo
    python3 "$ROOT/bench/report.py" "$TIMES" "$CONTROL" "$START" "$RESULTS" "$OUT/hls.txt" "$CPU" "$OUT/clients.txt" "$OUT/noisy.txt" \
        "$REGISTRY" "$OUT/dash.txt" "$THREADS"
    if [[ -s $OUT/memory.txt ]]; then
        { echo; echo "daemon peak RSS, MiB (bench/memory.py; bound 200):"; sed 's/^/  /' "$OUT/memory.txt"; } | tee -a "$RESULTS"
    fi
    log "results saved to $RESULTS; the bench took $(python3 -c "print(f'{$(now) - $began:.0f}')") s"
}

main "$@"
