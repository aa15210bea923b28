extension TimelineRun {
    /// Reads a SegmentTimeline's `S` elements: `@t` defaults to where the previous run ended
    /// (0 for the first), `@r` repeats a segment, and a negative `@r` repeats it until the next
    /// `S@t` or, for the last, until `periodEnd` (in ticks). Counts and times are checked: at
    /// most `DASHError.maxSegments` segments, and no time past 64 bits.
    static func resolve(_ timeline: MPDElement, periodEnd: Double) throws -> (runs: [TimelineRun], count: Int) {
        let entries = timeline.all("S")
        var runs: [TimelineRun] = []
        runs.reserveCapacity(entries.count)
        var next: UInt64 = 0
        var total = 0
        for (position, entry) in entries.enumerated() {
            guard let duration = try MPDValue.unsigned(entry, "d"), duration > 0 else {
                throw DASHError(.invalidDuration, "\(entry.label) has no @d above 0")
            }
            let start = try MPDValue.unsigned(entry, "t") ?? next
            let repeats = try Self.repeats(entry)
            let count: Int
            if repeats < 0 {
                let end: Double
                if position + 1 < entries.count {
                    guard let following = try MPDValue.unsigned(entries[position + 1], "t") else {
                        throw DASHError(.invalidAttribute, "\(entry.label) @r is negative but the next S has no @t to repeat up to")
                    }
                    end = Double(following)
                } else {
                    end = periodEnd
                }
                let span = (end - Double(start)) / Double(duration)
                guard span > 0 else {
                    throw DASHError(.invalidDuration, "\(entry.label) @r is negative but @t \(start) is at or past where the repeat ends (\(end) ticks)")
                }
                guard span.rounded(.up) <= Double(DASHError.maxSegments - total) else {
                    throw DASHError(.tooMany, "\(timeline.label) repeats past \(DASHError.maxSegments) segments at \(entry.label); the limit is per representation")
                }
                count = Int(span.rounded(.up))
            } else {
                guard repeats < Int64(DASHError.maxSegments - total) else {
                    throw DASHError(.tooMany, "\(timeline.label) has more than \(DASHError.maxSegments) segments at \(entry.label) (@r \(repeats)); the limit is per representation")
                }
                count = Int(repeats) + 1
            }
            let (span, overflow) = UInt64(count).multipliedReportingOverflow(by: duration)
            guard !overflow, start <= UInt64.max - span else {
                throw DASHError(.invalidDuration, "\(entry.label) ends past \(UInt64.max) ticks (@t \(start), @d \(duration), \(count) segments)")
            }
            runs.append(TimelineRun(start: start, duration: duration, count: count))
            total += count
            next = start + span
        }
        guard total > 0 else { throw DASHError(.noSegments, "\(timeline.label) has no S") }
        return (runs, total)
    }

    /// `@r`, an `xs:int` that may be negative (repeat until the next start or the period end).
    private static func repeats(_ entry: MPDElement) throws -> Int64 {
        guard let text = entry["r"]?.trimmingSpaces else { return 0 }
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int64(text) else {
            throw DASHError(.invalidAttribute, "\(entry.label) @r '\(text.prefix(40))' is not an integer")
        }
        return value
    }
}
