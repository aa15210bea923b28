/// A sum of Int64 values kept exactly (a carry beside the low word), so a total can be adjusted
/// by each change's delta, taken out again and still read as the saturating sum of what is in
/// it: a saturated total would never come down once a large value left.
struct ExactSum: Equatable {
    private var low: Int64 = 0
    /// How many times `low` wrapped upwards (positive) or downwards (negative).
    private var carry = 0

    mutating func add(_ value: Int64) {
        let (sum, overflow) = low.addingReportingOverflow(value)
        low = sum
        if overflow { carry += value > 0 ? 1 : -1 }
    }

    mutating func subtract(_ value: Int64) {
        let (difference, overflow) = low.subtractingReportingOverflow(value)
        low = difference
        if overflow { carry += value > 0 ? -1 : 1 }
    }

    mutating func add(_ other: ExactSum) {
        add(other.low)
        carry += other.carry
    }

    /// The sum, held at Int64's bounds.
    var clamped: Int64 {
        carry > 0 ? .max : carry < 0 ? .min : low
    }
}
