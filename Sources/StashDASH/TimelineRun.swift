/// One `S` of a SegmentTimeline with its repeat resolved: `count` segments of `duration`
/// ticks from `start` (ticks of the template's timescale).
package struct TimelineRun: Equatable, Sendable {
    package var start: UInt64
    package var duration: UInt64
    package var count: Int

    package init(start: UInt64, duration: UInt64, count: Int) {
        self.start = start
        self.duration = duration
        self.count = count
    }
}
