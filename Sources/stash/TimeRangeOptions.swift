import ArgumentParser

/// `--start` and `--end`: the part of an HLS stream to keep (`stash add`) or to size (`stash plan`).
struct TimeRangeOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Keep the stream from this many seconds in (decimals allowed): the segments that overlap [start, end) are fetched.",
        valueName: "seconds"))
    var start: Double?

    @Option(help: ArgumentHelp(
        "Keep the stream up to this many seconds in; a segment that begins there is not fetched. Past the stream's end: to its end.",
        valueName: "seconds"))
    var end: Double?

    var given: Bool { start != nil || end != nil }
}
