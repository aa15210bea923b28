/// One resource to fetch: a media segment or an initialization segment, with its place on the
/// period's timeline in seconds (zero for an initialization segment).
package struct DASHSegment: Equatable, Sendable {
    package var url: String
    package var range: MediaRange?
    package var start: Double
    package var duration: Double

    package init(url: String, range: MediaRange?, start: Double, duration: Double) {
        self.url = url
        self.range = range
        self.start = start
        self.duration = duration
    }
}
