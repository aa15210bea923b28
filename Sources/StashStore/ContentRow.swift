import StashCore

/// The content rules of a row (`download` or `download_file`): read as none when a value is
/// not one a daemon would have written, with a problem naming it.
enum ContentRow {
    static func decode(expect: String?, minSize: Int64?, label: String, problems: inout [String]) -> (expect: String, minSize: Int64) {
        var expect = expect ?? ""
        var minSize = minSize ?? 0
        if !expect.isEmpty, ContentExpectation(stored: expect) == nil {
            problems.append("\(label): expect '\(expect.prefix(200))' is not a content rule; read as none")
            expect = ""
        }
        if !(0...ContentRules.maxMinSize).contains(minSize) {
            problems.append("\(label): min_size \(minSize) is not within 0...\(ContentRules.maxMinSize); read as none")
            minSize = 0
        }
        return (expect, minSize)
    }
}
