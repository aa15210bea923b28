/// A `SegmentBase`: the whole representation is one file (the BaseURL), its initialization
/// at `initialization` and its segments listed by the `sidx` box at `indexRange`.
package struct SegmentBase: Equatable, Sendable {
    package var url: String
    package var initialization: MediaRange?
    package var indexRange: MediaRange?
    package var timescale: UInt64
    package var presentationTimeOffset: UInt64

    package init(url: String, initialization: MediaRange?, indexRange: MediaRange?, timescale: UInt64, presentationTimeOffset: UInt64) {
        self.url = url
        self.initialization = initialization
        self.indexRange = indexRange
        self.timescale = timescale
        self.presentationTimeOffset = presentationTimeOffset
    }
}

extension SegmentBase {
    /// The segments the `sidx` box in `index` (the bytes of `indexRange`) lists, each a range
    /// of the one file.
    package func segments(index: [UInt8]) throws -> SegmentList {
        guard let indexRange else {
            throw DASHError(.noSegments, "the SegmentBase of \(url.prefix(200)) has no indexRange to read its segments from")
        }
        let parsed = try SegmentIndex(parsing: index, offset: indexRange.offset, presentationTimeOffset: presentationTimeOffset)
        guard parsed.entries.count <= DASHError.maxSegments else {
            throw DASHError(.tooMany, "the sidx box of \(url.prefix(200)) lists \(parsed.entries.count) segments; the limit is \(DASHError.maxSegments)")
        }
        let initialization = self.initialization.map { DASHSegment(url: url, range: $0, start: 0, duration: 0) }
        return SegmentList(initialization: initialization,
                           media: parsed.entries.map { DASHSegment(url: url, range: $0.range, start: $0.start, duration: $0.duration) })
    }
}
