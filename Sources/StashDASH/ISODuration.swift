/// ISO 8601 durations as `xs:duration` writes them (`PT1H2M3.5S`, `P1DT2H`, `P0Y0M0DT0H3M30.000S`).
/// Years and months have no fixed length, so they are read only when they are zero, as
/// packagers write them; a negative duration is no length at all.
enum ISODuration {
    /// The duration in seconds, or nil when `text` is not one (or is negative or not finite).
    static func seconds(_ text: String) -> Double? {
        var rest = Substring(text)
        guard rest.first == "P" else { return nil }
        rest = rest.dropFirst()
        var total = 0.0
        var inTime = false
        var sawField = false
        var lastRank = -1
        while !rest.isEmpty {
            if rest.first == "T" {
                guard !inTime else { return nil }
                inTime = true
                rest = rest.dropFirst()
                guard !rest.isEmpty else { return nil }
                continue
            }
            let digits = rest.prefix { ($0 >= "0" && $0 <= "9") || $0 == "." }
            guard !digits.isEmpty, digits.count <= 40, let value = Double(digits), value.isFinite else { return nil }
            rest = rest.dropFirst(digits.count)
            guard let designator = rest.first else { return nil }
            rest = rest.dropFirst()
            // Each designator once, in order; only seconds may have a fraction.
            let rank: Int
            let unit: Double
            switch (designator, inTime) {
            case ("Y", false): (rank, unit) = (0, 0)
            case ("M", false): (rank, unit) = (1, 0)
            case ("D", false): (rank, unit) = (2, 86_400)
            case ("H", true): (rank, unit) = (3, 3_600)
            case ("M", true): (rank, unit) = (4, 60)
            case ("S", true): (rank, unit) = (5, 1)
            default: return nil
            }
            guard rank > lastRank, rank == 5 || !digits.contains("."), unit > 0 || value == 0 else { return nil }
            lastRank = rank
            sawField = true
            total += value * unit
        }
        guard sawField, total.isFinite else { return nil }
        return total
    }
}
