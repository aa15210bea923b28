#!/usr/bin/env bash
# Writes the DASH benchmark presentation once (issue 31): 600 s, three video representations
# (240p, 480p, 720p; H.264) and one audio representation (AAC) in fragmented MP4, cut by
# ffmpeg's dash muxer into 2 s segments (300 per representation) addressed by a SegmentTemplate
# with a SegmentTimeline. Unencrypted.
#
# usage: make_dash.sh DIR
# One ffmpeg run draws the 720p test picture once and scales it for the two smaller
# representations; about 2-3 minutes on 2 cores. manifest.txt is written last (a presentation
# interrupted half-way is made again next time): for the 720p representation and the audio, one
# line each of name, segments, bytes (the initialization segment and the media segments) and the
# SHA-256 of them joined in order. DASH_SECONDS shortens it for a quick try.
set -euo pipefail

DIR=$1
SECONDS_TOTAL=${DASH_SECONDS:-600}
FPS=24
SEGMENT=2
GOP=$((SEGMENT * FPS))

rm -rf "$DIR" && mkdir -p "$DIR"
# Representations 0, 1, 2: video 240p, 480p, 720p; 3: audio.
ffmpeg -nostdin -hide_banner -v error -y \
    -f lavfi -i "testsrc2=size=1280x720:rate=$FPS:duration=$SECONDS_TOTAL" \
    -f lavfi -i "sine=frequency=440:beep_factor=4:sample_rate=48000:duration=$SECONDS_TOTAL" \
    -filter_complex "[0:v]split=3[a][b][c];[a]scale=426:240[v0];[b]scale=854:480[v1];[c]copy[v2]" \
    -map "[v0]" -map "[v1]" -map "[v2]" -map 1:a \
    -c:v libx264 -preset ultrafast -profile:v baseline -pix_fmt yuv420p -g "$GOP" -keyint_min "$GOP" -sc_threshold 0 \
    -b:v:0 400k -maxrate:v:0 400k -bufsize:v:0 400k -b:v:1 1200k -maxrate:v:1 1200k -bufsize:v:1 1200k \
    -b:v:2 2600k -maxrate:v:2 2600k -bufsize:v:2 2600k -c:a aac -b:a 96k -ac 2 \
    -use_timeline 1 -use_template 1 -seg_duration "$SEGMENT" -adaptation_sets "id=0,streams=v id=1,streams=a" \
    -f dash "$DIR/manifest.mpd"

for rep in 2 3; do
    name=$([[ $rep == 2 ]] && echo v720 || echo audio)
    mapfile -t files < <(cd "$DIR" && ls "init-stream$rep.m4s" && ls chunk-stream"$rep"-*.m4s | sort)
    bytes=$(cd "$DIR" && stat -c %s "${files[@]}" | awk '{ t += $1 } END { print t }')
    digest=$(cd "$DIR" && cat "${files[@]}" | sha256sum | cut -d' ' -f1)
    echo "$name $((${#files[@]} - 1)) $bytes $digest"
done >"$DIR/manifest.tmp"
echo "seconds $SECONDS_TOTAL" >>"$DIR/manifest.tmp"
mv "$DIR/manifest.tmp" "$DIR/manifest.txt"
