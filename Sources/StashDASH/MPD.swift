/// A static MPD (ISO/IEC 23009-1) as stash reads it: the periods in order, each with its
/// adaptation sets and representations, every URL resolved and every number checked.
package struct MPD: Equatable, Sendable {
    /// `mediaPresentationDuration`, else the end of the last period.
    package var duration: Double
    package var periods: [Period]

    package init(duration: Double, periods: [Period]) {
        self.duration = duration
        self.periods = periods
    }
}
