import StashClient

extension HLSOptions {
    /// "quality medium, at most 720 px high, subtitles en,es, default audio, 8 segments at once,
    /// time range 1:00-2:00": the choice as `show` prints it.
    var summary: String {
        var parts = [bandwidth.map { "the variant closest to \($0) bit/s" } ?? "quality \(quality.rawValue)"]
        if let maxHeight { parts.append("at most \(maxHeight) px high") }
        parts.append(subtitles.isEmpty ? "no subtitles" : "subtitles \(subtitles.joined(separator: ","))")
        parts.append(audio.isEmpty ? "default audio" : "audio \(audio.joined(separator: ","))")
        parts.append("\(segmentConcurrency) segments at once")
        if hasRange { parts.append("time range \(Format.range(start: start, end: end))") }
        return parts.joined(separator: ", ")
    }

    /// The choice in the public record (`hls`).
    var record: [String: Any] {
        var record: [String: Any] = [
            "quality": quality.rawValue, "subtitles": subtitles, "audio": audio, "segmentConcurrency": segmentConcurrency,
        ]
        if let maxHeight { record["maxHeight"] = maxHeight }
        if let bandwidth { record["bandwidth"] = bandwidth }
        // Seconds, absent when not given (the range is then the whole stream).
        if let start { record["start"] = start }
        if let end { record["end"] = end }
        return record
    }
}
