/* libavformat, libavcodec and libavutil (FFmpeg) for `stash export FILE`: the demuxers that
   read a package's segments (MPEG-TS, fragmented MP4, WebVTT, SubRip), the muxers that write
   one file (MP4, Matroska), and the subtitle codecs that turn text cues into mov_text. */
#ifndef STASH_CAVFORMAT_SHIM_H
#define STASH_CAVFORMAT_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/mathematics.h>

/* Function-like macros Swift cannot import. */

/* AVERROR(e): the negative error code of a POSIX errno. */
static inline int stash_averror(int errno_code) { return AVERROR(errno_code); }

/* AVERROR_EOF: the end of a stream. */
static inline int stash_averror_eof(void) { return AVERROR_EOF; }

/* AV_NOPTS_VALUE: a timestamp that is not known. */
static inline int64_t stash_av_nopts_value(void) { return AV_NOPTS_VALUE; }

/* AV_TIME_BASE_Q: microseconds, the time base of AVFormatContext.start_time. */
static inline AVRational stash_av_time_base_q(void) { return (AVRational){1, AV_TIME_BASE}; }

#endif
