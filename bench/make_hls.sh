#!/usr/bin/env bash
# Writes the HLS benchmark stream once (issue 4): 600 s, three MPEG-TS variants (240p, 480p,
# 720p; H.264 + AAC) cut into 2 s segments (300 per variant), two WebVTT subtitle renditions
# (en, es) and a master playlist written here, with BANDWIDTH (peak segment rate),
# AVERAGE-BANDWIDTH, RESOLUTION, CODECS and SUBTITLES="subs". Unencrypted.
#
# usage: make_hls.sh DIR
# One ffmpeg run draws the 720p test picture once and scales it for the two smaller variants;
# about 2-3 minutes on 2 cores. manifest.txt is written last: a stream interrupted half-way is
# made again next time. HLS_SECONDS shortens the stream for a quick try (the bench checks
# the manifest's seconds and remakes a stream of another length).
set -euo pipefail

DIR=$1
SECONDS_TOTAL=${HLS_SECONDS:-600}
FPS=24
SEGMENT=2
# Subtitle segments are longer than media segments, as most services cut them.
SUB_SEGMENT=10
GOP=$((SEGMENT * FPS))
# name width height video-kb/s (the encoder's target and VBV cap; audio adds 96 kb/s)
VARIANTS=("v240 426 240 400" "v480 854 480 1200" "v720 1280 720 2600")

rm -rf "$DIR" && mkdir -p "$DIR"

filter="[0:v]split=${#VARIANTS[@]}"
for i in "${!VARIANTS[@]}"; do filter+="[s$i]"; done
args=()
for i in "${!VARIANTS[@]}"; do
    read -r name width height kbps <<<"${VARIANTS[$i]}"
    mkdir -p "$DIR/$name"
    filter+=";[s$i]scale=${width}:${height}[o$i]"
    args+=(-map "[o$i]" -map 1:a
        -c:v libx264 -preset ultrafast -profile:v baseline -level:v 3.1 -pix_fmt yuv420p
        # A keyframe at every segment start, and only there, so every segment is 2 s.
        -g "$GOP" -keyint_min "$GOP" -sc_threshold 0
        -b:v "${kbps}k" -maxrate "${kbps}k" -bufsize "${kbps}k"
        -c:a aac -b:a 96k -ac 2
        -f hls -hls_time "$SEGMENT" -hls_playlist_type vod -hls_list_size 0
        -hls_segment_filename "$DIR/$name/seg%03d.ts" "$DIR/$name/index.m3u8")
done

ffmpeg -nostdin -hide_banner -v error -y \
    -f lavfi -i "testsrc2=size=1280x720:rate=$FPS:duration=$SECONDS_TOTAL" \
    -f lavfi -i "sine=frequency=440:beep_factor=4:sample_rate=48000:duration=$SECONDS_TOTAL" \
    -filter_complex "$filter" "${args[@]}"

python3 - "$DIR" "$SECONDS_TOTAL" "$SEGMENT" "$SUB_SEGMENT" "$FPS" "${VARIANTS[@]}" <<'EOF'
import hashlib, os, sys

directory, seconds, segment, sub_segment, fps = sys.argv[1], *map(int, sys.argv[2:6])
variants = [v.split() for v in sys.argv[6:]]
codecs = "avc1.42c01f,mp4a.40.2"  # x264 baseline (constraint_set0+1), level 3.1; AAC-LC

def media_segments(playlist):
    """(duration, uri) of each segment of a media playlist."""
    out, duration = [], None
    for line in open(playlist):
        line = line.strip()
        if line.startswith("#EXTINF:"):
            duration = float(line[8:].split(",")[0])
        elif line and not line.startswith("#"):
            out.append((duration, line))
    return out

# Subtitles: one cue every 2 s. The X-TIMESTAMP-MAP ties cue time 0 to the first video PTS
# (ffmpeg's MPEG-TS muxer starts at 1.4 s = 126000 ticks of 90 kHz).
subtitles = [("en", "English", "Line"), ("es", "Español", "Línea")]
def stamp(t):
    return f"{t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}.000"
for language, _, word in subtitles:
    folder = os.path.join(directory, "subs", language)
    os.makedirs(folder, exist_ok=True)
    lines = ["#EXTM3U", "#EXT-X-VERSION:3", f"#EXT-X-TARGETDURATION:{sub_segment}",
             "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"]
    for index, start in enumerate(range(0, seconds, sub_segment)):
        end = min(start + sub_segment, seconds)
        cues = [f"{stamp(t)} --> {stamp(min(t + 2, end))}\n{word} {t // 2 + 1}\n" for t in range(start, end, 2)]
        name = f"sub{index:03d}.vtt"
        with open(os.path.join(folder, name), "w") as f:
            f.write("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:126000,LOCAL:00:00:00.000\n\n" + "\n".join(cues))
        lines += [f"#EXTINF:{end - start:.3f},", name]
    lines.append("#EXT-X-ENDLIST")
    with open(os.path.join(folder, "index.m3u8"), "w") as f:
        f.write("\n".join(lines) + "\n")

master = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-INDEPENDENT-SEGMENTS"]
for language, name, _ in subtitles:
    default = "YES" if language == "en" else "NO"
    master.append(f'#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="{name}",LANGUAGE="{language}",'
                  f'DEFAULT={default},AUTOSELECT=YES,URI="subs/{language}/index.m3u8"')
manifest = [f"seconds {seconds}"]
for name, width, height, _ in variants:
    playlist = os.path.join(directory, name, "index.m3u8")
    text = open(playlist).read()
    if "#EXT-X-PLAYLIST-TYPE:VOD" not in text or "#EXT-X-ENDLIST" not in text:
        sys.exit(f"{playlist} is not a complete VOD playlist")
    segments = media_segments(playlist)
    total, peak, digest = 0, 0, hashlib.sha256()
    for duration, uri in segments:
        data = open(os.path.join(directory, name, uri), "rb").read()
        total += len(data)
        digest.update(data)
        peak = max(peak, len(data) * 8 / duration)
    master.append(f"#EXT-X-STREAM-INF:BANDWIDTH={int(peak)},AVERAGE-BANDWIDTH={total * 8 // seconds},"
                  f'RESOLUTION={width}x{height},CODECS="{codecs}",FRAME-RATE={fps:.3f},SUBTITLES="subs"')
    master.append(f"{name}/index.m3u8")
    # segments, bytes and SHA-256 of the segments concatenated in playlist order: a download
    # that keeps the segments or joins them unchanged can be checked byte for byte.
    manifest.append(f"{name} {len(segments)} {total} {digest.hexdigest()}")
with open(os.path.join(directory, "master.m3u8"), "w") as f:
    f.write("\n".join(master) + "\n")
with open(os.path.join(directory, "manifest.txt.tmp"), "w") as f:
    f.write("\n".join(manifest) + "\n")
os.replace(os.path.join(directory, "manifest.txt.tmp"), os.path.join(directory, "manifest.txt"))
EOF
