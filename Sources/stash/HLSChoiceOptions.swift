import ArgumentParser
import StashClient

/// `stash add` options that choose what to keep of an HLS stream.
struct HLSChoiceOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "low, medium or high: the lowest variant of at least 0.5, 1.5 or 3 Mb/s (else the highest); auto: the highest.",
        valueName: "quality"))
    var quality: String?

    @Option(name: .customLong("max-height"), help: ArgumentHelp("Only variants at most this many pixels high.", valueName: "pixels"))
    var maxHeight: Int?

    @Option(help: ArgumentHelp("The variant whose BANDWIDTH is closest to this, not above (bits/s).", valueName: "bits"))
    var bandwidth: UInt64?

    @Option(help: ArgumentHelp("Subtitle languages to keep, comma-separated (en,es), or all.", valueName: "langs"))
    var subtitles: String?

    @Option(help: ArgumentHelp("Audio languages to keep, comma-separated, or all; the default audio when absent.", valueName: "langs"))
    var audio: String?

    @Option(help: ArgumentHelp("Segments fetched at once (default 8).", valueName: "n"))
    var segments: Int?

    @Flag(help: "Treat the URL as an HLS stream even if it does not end in .m3u8.")
    var hlsStream = false

    @OptionGroup var range: TimeRangeOptions

    var given: Bool {
        quality != nil || maxHeight != nil || bandwidth != nil || subtitles != nil || audio != nil || segments != nil || hlsStream
            || range.given
    }

    /// Checked while parsing, so the error is `stash add`'s, with the values it takes.
    func validate() throws {
        if let quality, HLSOptions.Quality(rawValue: quality.lowercased()) == nil {
            let values = HLSOptions.Quality.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("--quality '\(quality)' is not one of \(values)")
        }
    }

    /// Nil when no HLS option was given (the daemon still treats a .m3u8 URL as HLS).
    func options() -> HLSOptions? {
        guard given else { return nil }
        var options = HLSOptions()
        if let quality, let value = HLSOptions.Quality(rawValue: quality.lowercased()) { options.quality = value }
        options.maxHeight = maxHeight
        options.bandwidth = bandwidth
        options.subtitles = Self.languages(subtitles)
        options.audio = Self.languages(audio)
        if let segments { options.segmentConcurrency = segments }
        options.start = range.start
        options.end = range.end
        return options
    }

    private static func languages(_ list: String?) -> [String] {
        (list ?? "").split(separator: ",").map { $0.trimmingBlanks() }.filter { !$0.isEmpty }
    }
}
