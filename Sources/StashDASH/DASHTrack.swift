/// One chosen representation of one period: what is fetched for it and where it goes.
package struct DASHTrack: Equatable, Sendable {
    package var period: Int
    package var kind: MediaKind
    package var set: AdaptationSet
    package var representation: Representation
    /// Its folder in the package, relative to the asset folder (`video`, `audio/en`,
    /// `subtitles/de-2`, under `period1/` and so on when there are several periods).
    package var folder: String

    package init(period: Int, kind: MediaKind, set: AdaptationSet, representation: Representation, folder: String) {
        self.period = period
        self.kind = kind
        self.set = set
        self.representation = representation
        self.folder = folder
    }
}
