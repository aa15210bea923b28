/// A SegmentTemplate's `media` or `initialization` URL template (ISO/IEC 23009-1 section
/// 5.3.9.4.4): text with `$RepresentationID$`, `$Number$`, `$Bandwidth$` and `$Time$`, each but
/// the first optionally with a width (`$Number%05d$`), and `$$` for a dollar sign.
package struct URLTemplate: Equatable, Sendable {
    enum Part: Equatable, Sendable {
        case text(String)
        case representationID
        case number(width: Int)
        case bandwidth(width: Int)
        case time(width: Int)
    }

    /// The widest `%0Nd` accepted: wider than any 64-bit number, narrower than a page of zeros.
    static let maxWidth = 32

    let parts: [Part]

    /// Whether the template names a segment by its number or time (an initialization template
    /// may not).
    var namesSegment: Bool {
        parts.contains { part in
            switch part {
            case .number, .time: true
            default: false
            }
        }
    }

    init(parsing text: String, field: String) throws {
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            literal += rest[..<dollar]
            let after = rest[rest.index(after: dollar)...]
            guard let close = after.firstIndex(of: "$") else {
                throw DASHError(.invalidTemplate, "\(field) '\(text.prefix(120))' has a '$' that is not closed")
            }
            let identifier = after[..<close]
            rest = after[after.index(after: close)...]
            if identifier.isEmpty {
                literal += "$"
                continue
            }
            if !literal.isEmpty {
                parts.append(.text(literal))
                literal = ""
            }
            parts.append(try Self.part(identifier, text: text, field: field))
        }
        literal += rest
        if !literal.isEmpty { parts.append(.text(literal)) }
        self.parts = parts
    }

    private static func part(_ identifier: Substring, text: String, field: String) throws -> Part {
        let name = identifier.prefix { $0 != "%" }
        let format = identifier.dropFirst(name.count)
        var width = 1
        if !format.isEmpty {
            // %0<width>d (or %d): the width is what pads the number with zeros.
            let digits = format.dropFirst().dropLast()
            guard format.count >= 2, format.first == "%", format.last == "d", digits.count <= 3,
                  digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let parsed = digits.isEmpty ? 1 : Int(digits), parsed <= maxWidth
            else {
                throw DASHError(.invalidTemplate, "\(field) '\(text.prefix(120))' has the format '\(format.prefix(20))'; a format is %0<width>d with a width up to \(maxWidth)")
            }
            width = max(parsed, 1)
        }
        switch name {
        case "RepresentationID" where format.isEmpty: return .representationID
        case "Number": return .number(width: width)
        case "Bandwidth": return .bandwidth(width: width)
        case "Time": return .time(width: width)
        case "SubNumber":
            throw DASHError(.unsupported, "\(field) '\(text.prefix(120))' uses $SubNumber$, which stash does not read")
        default:
            throw DASHError(.invalidTemplate, "\(field) '\(text.prefix(120))' has the identifier '$\(identifier.prefix(40))$'; known are $RepresentationID$, $Number$, $Bandwidth$, $Time$ and $$")
        }
    }

    func expand(representationID: String, bandwidth: UInt64, number: UInt64, time: UInt64) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .representationID: out += representationID
            case .number(let width): out += Self.padded(number, width)
            case .bandwidth(let width): out += Self.padded(bandwidth, width)
            case .time(let width): out += Self.padded(time, width)
            }
        }
        return out
    }

    private static func padded(_ value: UInt64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
