/// RFC 8216 section 3.5: a WebVTT segment of an HLS rendition ties its cue times to the
/// media's MPEG-2 clock with `X-TIMESTAMP-MAP=MPEGTS:<90 kHz ticks>,LOCAL:<cue time>` in its
/// header; without one, cue time 0 is MPEG time 0.
enum TimestampMap {
    /// Largest MPEGTS value: a 33-bit timestamp.
    static let maxTicks: Int64 = (1 << 33) - 1

    /// Microseconds to add to the segment's cue times to put them on the media's clock.
    /// Throws for a map that is there but cannot be read, naming the value.
    static func offset(of file: [UInt8], name: String) throws -> Int64 {
        // The header ends at the first blank line; a map is only read there.
        var lines = file.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).lazy.map {
            String(decoding: $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0[...], as: UTF8.self)
        }.makeIterator()
        _ = lines.next()
        while let line = lines.next(), !line.isEmpty {
            let tag = "X-TIMESTAMP-MAP="
            guard line.hasPrefix(tag) else { continue }
            var ticks: Int64?
            var local: Int64?
            for part in line.dropFirst(tag.count).split(separator: ",") {
                if part.hasPrefix("MPEGTS:") {
                    let digits = part.dropFirst("MPEGTS:".count)
                    guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy(\.isASCIIDigit), let value = Int64(digits), value <= maxTicks else {
                        throw RemuxError(call: name, code: 0, message: "X-TIMESTAMP-MAP MPEGTS '\(digits.prefix(40))' is not a 33-bit timestamp (0 to \(maxTicks))")
                    }
                    ticks = value
                } else if part.hasPrefix("LOCAL:") {
                    let text = part.dropFirst("LOCAL:".count)
                    guard let value = cueTime(text) else {
                        throw RemuxError(call: name, code: 0, message: "X-TIMESTAMP-MAP LOCAL '\(text.prefix(40))' is not a WebVTT time (hh:mm:ss.ttt)")
                    }
                    local = value
                }
            }
            guard let ticks, let local else {
                throw RemuxError(call: name, code: 0, message: "X-TIMESTAMP-MAP '\(line.prefix(80))' needs both MPEGTS and LOCAL")
            }
            return ticks * 100 / 9 - local
        }
        return 0
    }

    /// A WebVTT timestamp (`[h…h:]mm:ss.ttt`, up to 9 digits of hours) in microseconds; nil
    /// when it is not one.
    static func cueTime<Text: StringProtocol>(_ text: Text) -> Int64? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, let last = parts.last else { return nil }
        let seconds = last.split(separator: ".", omittingEmptySubsequences: false)
        guard seconds.count == 2, seconds[1].count == 3 else { return nil }
        let hoursText = parts.count == 3 ? parts[0] : "0"
        let fields = [hoursText, parts[parts.count - 2], seconds[0], seconds[1]]
        guard fields.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy(\.isASCIIDigit) }), fields[1].count == 2, fields[2].count == 2,
            let hours = Int64(fields[0]), let minutes = Int64(fields[1]), let whole = Int64(fields[2]), let millis = Int64(fields[3]),
            minutes < 60, whole < 60
        else { return nil }
        return ((hours * 60 + minutes) * 60 + whole) * 1_000_000 + millis * 1000
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
