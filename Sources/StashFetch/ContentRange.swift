/// A parsed `Content-Range: bytes first-last/size` (206) or `bytes */size` (416).
struct ContentRange: Equatable {
    /// nil for the unsatisfied form `*/size`.
    var first: Int64?
    var last: Int64?
    /// nil when the server wrote `*` for an unknown size.
    var size: Int64?

    init(first: Int64?, last: Int64?, size: Int64?) {
        self.first = first
        self.last = last
        self.size = size
    }

    init?(parsing text: String) {
        let trimmed = text.split(separator: " ", maxSplits: 1)
        guard trimmed.count == 2, trimmed[0].lowercased() == "bytes" else { return nil }
        let halves = trimmed[1].split(separator: "/", maxSplits: 1)
        guard halves.count == 2 else { return nil }
        if halves[1] == "*" {
            size = nil
        } else {
            guard let total = Int64(halves[1]), total >= 0 else { return nil }
            size = total
        }
        if halves[0] == "*" {
            first = nil
            last = nil
        } else {
            let bounds = halves[0].split(separator: "-", maxSplits: 1)
            guard bounds.count == 2, let low = Int64(bounds[0]), let high = Int64(bounds[1]), low <= high else { return nil }
            first = low
            last = high
        }
    }
}
