/// Byte counts come from servers, playlists, requests and registry rows, and a trap is a dead
/// daemon: the sums and differences of such counts stop at the bounds instead.
extension Int64 {
    package func addingSaturating(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    package func subtractingSaturating(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other > 0 ? .min : .max) : difference
    }

    package func multipliedSaturating(by other: Int64) -> Int64 {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? ((self < 0) == (other < 0) ? .max : .min) : product
    }
}

extension Sequence {
    /// The saturating sum of `value` over the elements.
    package func saturatingSum(_ value: (Element) -> Int64) -> Int64 {
        reduce(0) { $0.addingSaturating(value($1)) }
    }
}
