/// Why an MPD was refused. The message names the element or attribute, the value and the
/// limit, so the person who published the stream can find what to fix.
package struct DASHError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable, CaseIterable {
        /// The MPD is larger than `maxMPDBytes`.
        case tooLarge
        /// libxml2 could not read the document as XML, or it has a document type declaration
        /// (an MPD never needs one, and its entities are the billion-laughs attack).
        case notXML
        /// The root element is not an `MPD`.
        case notMPD
        /// More than `maxPeriods` periods, `maxRepresentations` representations or `maxSegments`
        /// segments in one representation.
        case tooMany
        /// A URL that does not parse or is not http(s) once resolved against its base.
        case invalidURI
        /// A duration or time that is malformed, negative, not a number or above
        /// `maxPresentationSeconds`.
        case invalidDuration
        /// A number attribute that is malformed or out of its range (a timescale of 0, a
        /// bandwidth that is not an integer).
        case invalidAttribute
        /// A `mediaRange`, `indexRange` or `range` that is malformed or past the largest file
        /// position.
        case invalidByteRange
        /// A SegmentTemplate's `media` or `initialization` with an identifier or format that
        /// ISO/IEC 23009-1 section 5.3.9.4.4 does not define.
        case invalidTemplate
        /// A presentation stash cannot keep offline: dynamic (live), or segments addressed in a
        /// way it does not read (`$SubNumber$`, xlink).
        case unsupported
        /// A representation without a way to address its segments, or without a single segment.
        case noSegments
        /// A `sidx` box that is truncated, of another version, or whose references overflow.
        case invalidIndex
    }

    /// The largest MPD accepted; checked before libxml2 sees a byte.
    package static let maxMPDBytes = 16 * 1024 * 1024
    /// The most periods one MPD may have.
    package static let maxPeriods = 256
    /// The most representations in all periods together.
    package static let maxRepresentations = 2_000
    /// The most segments one representation may have in one period (a 2-second-segment stream
    /// of 55 hours), as for an HLS media playlist.
    package static let maxSegments = 100_000
    /// No presentation, period or segment may last more than a week.
    package static let maxPresentationSeconds: Double = 7 * 24 * 60 * 60

    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code.rawValue): \(message)" }
}
