/// A key URI of the `skd://KEYID` or `skd://KEYID:IV` form: the key is not fetched from the
/// URI but asked of a licence server by its id. Parsed the way the original platform parses
/// it (remove "skd://", split on ':'), then read: an id of 32 hex digits is those 16 bytes
/// (with an optional IV of 32 hex digits after it); any other id is opaque, as FairPlay
/// streams write them (`skd://someuri`), and is the UTF-8 bytes of its text, which the
/// original platform passes to its key server as they are.
package struct SKDURI: Equatable, Sendable {
    package static let scheme = "skd://"
    /// The longest opaque id, in UTF-8 bytes: FairPlay ids are names and URLs of some tens of
    /// bytes, and each one travels in every licence request of its download.
    package static let maxOpaqueKeyIDBytes = 256

    /// The id's bytes: 16 for a hex id, the text's UTF-8 for an opaque one.
    package var keyID: [UInt8]
    /// The IV the URI carries; a segment uses it when its EXT-X-KEY has no IV attribute.
    package var iv: [UInt8]?

    package static func isSKD(_ uri: Substring) -> Bool { uri.hasPrefix(scheme) }

    /// Every "skd://" is removed, not only a leading one, as the original platform does, so
    /// `skd://skd://ID` reads as `skd://ID`.
    ///
    /// - Throws: `HLSError.Code.invalidURI` for an empty or too long id, or a hex id followed
    ///   by more than an IV; `.invalidIV` for an IV that is not 32 hex digits. Each names the
    ///   URI and the part that is wrong.
    package init(parsing uri: Substring, line: Int?) throws {
        let text = uri.replacingOccurrences(of: Self.scheme, with: "")
        let components = text.split(separator: ":", omittingEmptySubsequences: false)
        // A UUID's dashes are only presentation; the id is its 16 bytes.
        if let keyID = Self.hex(components[0].filter { $0 != "-" }[...]) {
            guard components.count <= 2 else {
                throw HLSError(.invalidURI, line: line, "EXT-X-KEY URI '\(uri.prefix(200))' is not skd://KEYID or skd://KEYID:IV")
            }
            self.keyID = keyID
            if components.count == 2 {
                guard let iv = Self.ivBytes(components[1]) else { throw Self.badIV(components[1], uri: uri, line: line) }
                self.iv = iv
            }
            return
        }
        // An opaque id may hold ':' (a host and port); only an IV in the hex form is split off.
        if components.count == 2, let iv = Self.ivBytes(components[1]) {
            self.keyID = Array(components[0].utf8)
            self.iv = iv
        } else if components.count == 2, components[1].hasPrefix("0x") || components[1].hasPrefix("0X") {
            // Written as an IV, so an IV of the wrong length, not part of the id.
            throw Self.badIV(components[1], uri: uri, line: line)
        } else {
            keyID = Array(text.utf8)
        }
        guard !keyID.isEmpty else {
            throw HLSError(.invalidURI, line: line, "EXT-X-KEY URI '\(uri.prefix(200))' has an empty key id")
        }
        guard keyID.count <= Self.maxOpaqueKeyIDBytes else {
            throw HLSError(.invalidURI, line: line,
                           "EXT-X-KEY URI '\(uri.prefix(200))': key id is \(keyID.count) bytes; the limit is \(Self.maxOpaqueKeyIDBytes)")
        }
    }

    private static func badIV(_ text: Substring, uri: Substring, line: Int?) -> HLSError {
        HLSError(.invalidIV, line: line, "EXT-X-KEY URI '\(uri.prefix(200))': IV '\(text.prefix(80))' is not 32 hex digits (16 bytes)")
    }

    /// 32 hex digits, `0x` optional.
    private static func ivBytes(_ text: Substring) -> [UInt8]? {
        hex(text.hasPrefix("0x") || text.hasPrefix("0X") ? text.dropFirst(2) : text)
    }

    /// Exactly 16 bytes written as 32 hex digits, or nil: how key ids and IVs are written.
    package static func hex(_ text: Substring) -> [UInt8]? {
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
