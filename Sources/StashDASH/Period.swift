/// One period of a presentation: its start and length in seconds from the presentation's
/// start, and what it offers.
package struct Period: Equatable, Sendable {
    package var id: String?
    package var start: Double
    package var duration: Double
    package var adaptationSets: [AdaptationSet]

    package init(id: String?, start: Double, duration: Double, adaptationSets: [AdaptationSet]) {
        self.id = id
        self.start = start
        self.duration = duration
        self.adaptationSets = adaptationSets
    }
}
