import Foundation

extension HLSFixture {
    /// MPEG-TS with muxed AAC audio in one 426x240 variant, AES-128 encrypted with `key`,
    /// whose EXT-X-KEY names the key only by id: URI "skd://<keyID in 32 lowercase hex>", so a
    /// player must ask a licence server for it. The key file is not left anywhere under
    /// `directory` (`keyPath` is nil; `keyHex` is the key).
    ///
    /// Without `uriIV` the EXT-X-KEY has IV=0x000…0, the IV ffmpeg uses when told none (the
    /// first segment's sequence number, for every segment). With `uriIV` the segments are
    /// encrypted with the fixed IV f0e1d2c3b4a5968778695a4b3c2d1e0f, which the URI carries
    /// ("skd://<keyID>:<IV>") and the EXT-X-KEY has no IV attribute. Either way the variant's
    /// `ivHex` is the IV the segments were encrypted with.
    ///
    /// - Throws: `HLSFixtureError` when `keyID` or `key` is not 16 bytes, or ffmpeg fails.
    package static func tsSKD(
        in directory: String, seconds: Int = 8, keyID: [UInt8], key: [UInt8], uriIV: Bool = false
    ) throws -> HLSFixture {
        guard keyID.count == 16 else {
            throw HLSFixtureError("an skd:// fixture needs a 16-byte key id, not \(keyID.count) bytes")
        }
        return try tsSKD(in: directory, seconds: seconds, uriKeyID: hex(keyID), key: key, uriIV: uriIV)
    }

    /// The same with an opaque key id, FairPlay style: URI "skd://<opaqueKeyID>" as given
    /// (`skd://someuri`), which a licence server knows by its UTF-8 bytes.
    package static func tsSKD(in directory: String, seconds: Int = 8, opaqueKeyID: String, key: [UInt8]) throws -> HLSFixture {
        try tsSKD(in: directory, seconds: seconds, uriKeyID: opaqueKeyID, key: key, uriIV: false)
    }

    private static func tsSKD(in directory: String, seconds: Int, uriKeyID: String, key: [UInt8], uriIV: Bool) throws -> HLSFixture {
        guard key.count == 16 else {
            throw HLSFixtureError("an skd:// fixture needs a 16-byte key, not \(key.count) bytes")
        }
        let iv = uriIV ? "f0e1d2c3b4a5968778695a4b3c2d1e0f" : String(repeating: "0", count: 32)
        var uri = "skd://" + uriKeyID
        if uriIV { uri += ":" + iv }
        // Naming ffmpeg's default IV explicitly changes no byte of its output, and has `make`
        // report it as the variant's IV.
        let specs = [
            VariantSpec(
                name: "v0", width: 426, height: 240, bandwidth: 1_600_000, videoKbps: 900, kind: .ts,
                encryption: .explicitIV(iv))
        ]
        let keyFile = "skd.key"
        let made = try make(
            in: directory, seconds: seconds, specs: specs, subtitles: [], key: (hex: hex(key), path: keyFile, uriFromVariant: uri))
        // ffmpeg reads the key from a file; a player must not find it beside the playlists.
        try FileManager.default.removeItem(atPath: directory + "/" + keyFile)
        if uriIV { try dropIVAttribute(playlist: directory + "/" + made.variants[0].path, iv: iv) }
        return HLSFixture(
            directory: made.directory, masterPath: made.masterPath, variants: made.variants, subtitles: [], audio: [],
            keyHex: made.keyHex, keyPath: nil, seconds: seconds)
    }

    /// Removes ",IV=0x<iv>" from every EXT-X-KEY, so the IV comes from the URI alone.
    static func dropIVAttribute(playlist: String, iv: String) throws {
        let text = try String(contentsOfFile: playlist, encoding: .utf8)
        let attribute = ",IV=0x" + iv
        let lines = try text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.hasPrefix("#EXT-X-KEY:") else { return String(line) }
            guard line.contains(attribute) else { throw HLSFixtureError("\(playlist): expected \(attribute) in '\(line)'") }
            return line.replacingOccurrences(of: attribute, with: "")
        }
        try lines.joined(separator: "\n").write(toFile: playlist, atomically: true, encoding: .utf8)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
