import Foundation

/// What a representation's segment addressing is read with: its period's length, its base URL
/// and the values its templates substitute; and the timelines already resolved in this period,
/// shared by representations that inherit one (a timeline of 100,000 `S` is read once, not once
/// per representation).
struct SegmentContext {
    var periodDuration: Double
    var baseURL: URL
    var representationID: String
    var bandwidth: UInt64
    var timelines: [TimelineKey: (runs: [TimelineRun], count: Int)] = [:]

    struct TimelineKey: Hashable {
        var element: Int
        var timescale: UInt64
        var presentationTimeOffset: UInt64
    }
}
