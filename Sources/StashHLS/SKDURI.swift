/// A key URI of the `skd://KEYID` or `skd://KEYID:IV` form: the key is not fetched from the
/// URI but asked of a licence server by its id. Parsed the way the original platform parses
/// it (remove "skd://", split on ':'), then checked: the id must be 16 bytes in hex and the
/// IV, when present, 16 bytes in hex.
public struct SKDURI: Equatable, Sendable {
    public static let scheme = "skd://"

    public var keyID: [UInt8]
    /// The IV the URI carries; a segment uses it when its EXT-X-KEY has no IV attribute.
    public var iv: [UInt8]?

    public static func isSKD(_ uri: Substring) -> Bool { uri.hasPrefix(scheme) }

    /// Every "skd://" is removed, not only a leading one, as the original platform does, so
    /// `skd://skd://ID` reads as `skd://ID`.
    ///
    /// - Throws: `HLSError.Code.invalidURI` (the id or the shape) or `.invalidIV`, naming the
    ///   URI and the part that is wrong.
    public init(parsing uri: Substring, line: Int?) throws {
        let components = uri.replacingOccurrences(of: Self.scheme, with: "").split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(components.count) else {
            throw HLSError(.invalidURI, line: line, "EXT-X-KEY URI '\(uri.prefix(200))' is not skd://KEYID or skd://KEYID:IV")
        }
        // A UUID's dashes are only presentation; the id is its 16 bytes.
        guard let keyID = Self.hex(components[0].filter { $0 != "-" }[...]) else {
            throw HLSError(.invalidURI, line: line,
                           "EXT-X-KEY URI '\(uri.prefix(200))': key id '\(components[0].prefix(80))' is not 32 hex digits (16 bytes)")
        }
        self.keyID = keyID
        if components.count == 2 {
            var text = components[1]
            if text.hasPrefix("0x") || text.hasPrefix("0X") { text = text.dropFirst(2) }
            guard let iv = Self.hex(text) else {
                throw HLSError(.invalidIV, line: line,
                               "EXT-X-KEY URI '\(uri.prefix(200))': IV '\(components[1].prefix(80))' is not 32 hex digits (16 bytes)")
            }
            self.iv = iv
        }
    }

    /// Exactly 16 bytes written as 32 hex digits, or nil: how key ids and IVs are written.
    public static func hex(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) {
            guard let high = AttributeList.hexDigit(digits[index]), let low = AttributeList.hexDigit(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
