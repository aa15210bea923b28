/// A `SegmentList`: the initialization segment and media segments named one by one.
package struct SegmentList: Equatable, Sendable {
    package var initialization: DASHSegment?
    package var media: [DASHSegment]

    package init(initialization: DASHSegment?, media: [DASHSegment]) {
        self.initialization = initialization
        self.media = media
    }
}
