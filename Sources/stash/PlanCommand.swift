import ArgumentParser
import Foundation
import StashClient

struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Show what an HLS stream or a DASH MPD offers before downloading it.",
        discussion: """
            Lists the variants (bandwidth, average bandwidth, resolution, codecs, frame rate, \
            encryption and estimated size; exact where byte ranges give it), the audio and \
            subtitle renditions and the duration, then what the daemon read leniently or \
            filled in (a line it ignored, a missing EXT-X-TARGETDURATION or BANDWIDTH) and a \
            live playlist, as warnings. Nothing is downloaded. With --start and --end (seconds), \
            the sizes are those of the segments that time range keeps, and the range is shown \
            as a download would keep it (an end past the stream is its end, with a warning). \
            --json prints one object with variants, audio, subtitles, duration and warnings, \
            and start and end with a time range. For an MPD, each video representation is a \
            variant (its size its bandwidth x the duration) and each audio and text adaptation \
            set a rendition.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The master (or media) playlist URL, or the MPD's.", valueName: "url"))
    var url: String

    @Option(name: .customLong("header"), help: ArgumentHelp("A request header, 'Name: value'; repeat for more.", valueName: "header"))
    var headers: [String] = []

    @OptionGroup(title: "Time range (the sizes are those of its segments, as `stash add --start --end` would fetch)")
    var range: TimeRangeOptions

    func run() async throws {
        let parsedHeaders = try headers.map { try HTTPHeader(parsing: $0) }
        let client = try await global.connect()
        let info = try await client.manifestInfo(uri: url, headers: parsedHeaders, start: range.start, end: range.end)
        if global.json {
            Output.json(Self.json(info))
            return
        }
        Output.line("duration \(Format.duration(Int64(info.duration.rounded())))")
        if let start = info.start, let end = info.end {
            Output.line("time range \(Format.range(start: start, end: end)) (\(Format.position(end - start))); SIZE is its segments'")
        }
        var rows = [["#", "BANDWIDTH", "AVERAGE", "RESOLUTION", "FPS", "CODECS", "ENCRYPTION", "SIZE"]]
        for (index, variant) in info.variants.enumerated() {
            rows.append([
                String(index), variant.bandwidth.map(Self.rate) ?? "unknown", variant.averageBandwidth.map(Self.rate) ?? "-",
                variant.width.flatMap { width in variant.height.map { "\(width)x\($0)" } } ?? "-",
                variant.frameRate.map { String(format: "%.3g", $0) } ?? "-",
                variant.codecs.isEmpty ? "-" : variant.codecs.joined(separator: ","),
                variant.encryption.joined(separator: ","),
                (variant.sizeIsExact ? "" : "~") + Format.bytes(variant.estimatedBytes),
            ])
        }
        Format.table(rows).forEach(Output.line)
        for (title, renditions) in [("audio", info.audio), ("subtitles", info.subtitles)] where !renditions.isEmpty {
            Output.line("")
            var rows = [[title.uppercased(), "LANGUAGE", "NAME", "GROUP", "FLAGS"]]
            for (index, rendition) in renditions.enumerated() {
                let flags = [rendition.isDefault ? "default" : nil, rendition.forced ? "forced" : nil].compactMap { $0 }
                rows.append([String(index), rendition.language.isEmpty ? "-" : rendition.language, rendition.name,
                             rendition.groupID, flags.isEmpty ? "-" : flags.joined(separator: ",")])
            }
            Format.table(rows).forEach(Output.line)
        }
        if !info.warnings.isEmpty {
            Output.line("")
            for warning in info.warnings { Output.line("warning: " + warning) }
        }
    }

    static func rate(_ bitsPerSecond: UInt64) -> String {
        bitsPerSecond >= 1_000_000 ? String(format: "%.2f Mb/s", Double(bitsPerSecond) / 1_000_000)
            : String(format: "%.0f kb/s", Double(bitsPerSecond) / 1000)
    }

    static func json(_ info: ManifestInfo) -> [String: Any] {
        var object: [String: Any] = [
            "duration": info.duration,
            "variants": info.variants.map { variant -> [String: Any] in
                var object: [String: Any] = [
                    "uri": variant.uri, "codecs": variant.codecs,
                    "encryption": variant.encryption, "estimatedBytes": variant.estimatedBytes,
                    "sizeIsExact": variant.sizeIsExact, "duration": variant.duration,
                ]
                // Absent when unknown, as the other optional figures are.
                if let bandwidth = variant.bandwidth { object["bandwidth"] = bandwidth }
                if let average = variant.averageBandwidth { object["averageBandwidth"] = average }
                if let width = variant.width { object["width"] = width }
                if let height = variant.height { object["height"] = height }
                if let rate = variant.frameRate { object["frameRate"] = rate }
                return object
            },
            "audio": info.audio.map(rendition),
            "subtitles": info.subtitles.map(rendition),
            "warnings": info.warnings,
        ]
        // The time range the sizes are for, in seconds; absent without one.
        if let start = info.start { object["start"] = start }
        if let end = info.end { object["end"] = end }
        return object
    }

    private static func rendition(_ rendition: ManifestInfo.RenditionInfo) -> [String: Any] {
        ["groupId": rendition.groupID, "language": rendition.language, "name": rendition.name,
         "default": rendition.isDefault, "forced": rendition.forced, "uri": rendition.uri]
    }
}
