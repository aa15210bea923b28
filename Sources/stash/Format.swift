import Foundation

/// Human-readable numbers for tables and progress bars.
enum Format {
    /// 1536 -> "1.5 KiB".
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }

    static func speed(_ bytesPerSecond: Int64) -> String {
        bytesPerSecond > 0 ? bytes(bytesPerSecond) + "/s" : "-"
    }

    /// 75 -> "1:15", 3700 -> "1:01:40"; nil -> "?".
    static func duration(_ seconds: Int64?) -> String {
        guard let seconds else { return "?" }
        let h = seconds / 3600, m = (seconds % 3600) / 60, s = seconds % 60
        return h > 0 ? String(format: "%lld:%02lld:%02lld", h, m, s) : String(format: "%lld:%02lld", m, s)
    }

    /// A time in a stream: 75 -> "1:15", 90.5 -> "1:30.5", 3723.25 -> "1:02:03.25" (at most
    /// three decimals). A value no stream has (negative, not finite, beyond a million hours)
    /// is shown as the number it is.
    static func position(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 3.6e9 else { return "\(seconds) s" }
        let millis = Int64((seconds * 1000).rounded())
        var text = duration(millis / 1000)
        if millis % 1000 != 0 {
            var fraction = String(millis % 1000)
            fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return text
    }

    /// "1:00-2:00", "1:00-end", "start-0:30": a time range of an HLS download.
    static func range(start: Double?, end: Double?) -> String {
        "\(start.map(position) ?? "start")-\(end.map(position) ?? "end")"
    }

    /// Left-aligned columns separated by two spaces; the last column is not padded.
    static func table(_ rows: [[String]]) -> [String] {
        guard let columns = rows.map(\.count).max() else { return [] }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }
}
