/// How a representation's segments are found (ISO/IEC 23009-1 section 5.3.9): a template
/// expanded per segment, a list of URLs, or one file with an index.
package enum SegmentAddressing: Equatable, Sendable {
    case template(SegmentTemplate)
    case list(SegmentList)
    case base(SegmentBase)
}
