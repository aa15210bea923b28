import StashCore
import XCTest
@testable import StashHLS

/// Keys named by a licence server's key id: the `skd://KEYID[:IV]` URI, the KEYID attribute,
/// and what a package keeps of them.
final class SKDURITests: XCTestCase {
    let keyIDHex = "00112233445566778899aabbccddeeff"
    let keyID: [UInt8] = [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF]
    let ivHex = "f0e1d2c3b4a5968778695a4b3c2d1e0f"
    let iv: [UInt8] = [0xF0, 0xE1, 0xD2, 0xC3, 0xB4, 0xA5, 0x96, 0x87, 0x78, 0x69, 0x5A, 0x4B, 0x3C, 0x2D, 0x1E, 0x0F]

    func parse(_ uri: String) throws -> SKDURI { try SKDURI(parsing: uri[...], line: 4) }

    // MARK: - SKDURI

    func testKeyIDAlone() throws {
        let uri = try parse("skd://" + keyIDHex)
        XCTAssertEqual(uri.keyID, keyID)
        XCTAssertNil(uri.iv)
        XCTAssertTrue(SKDURI.isSKD("skd://\(keyIDHex)"))
        XCTAssertFalse(SKDURI.isSKD("https://keys.example.com/skd://\(keyIDHex)"), "only the scheme at the start makes a licence key")
    }

    func testKeyIDWithIVWithAndWithout0x() throws {
        for text in ["skd://\(keyIDHex):\(ivHex)", "skd://\(keyIDHex):0x\(ivHex)", "skd://\(keyIDHex):0X\(ivHex)"] {
            let uri = try parse(text)
            XCTAssertEqual(uri.keyID, keyID, text)
            XCTAssertEqual(uri.iv, iv, text)
        }
    }

    /// The dashes of a UUID are presentation only: the id is the same 16 bytes.
    func testUUIDWithDashes() throws {
        XCTAssertEqual(try parse("skd://00112233-4455-6677-8899-aabbccddeeff").keyID, keyID)
        XCTAssertEqual(try parse("skd://00112233-4455-6677-8899-AABBCCDDEEFF:\(ivHex)"), try parse("skd://\(keyIDHex):\(ivHex)"))
    }

    func testUpperAndLowerHexReadTheSame() throws {
        XCTAssertEqual(try parse("skd://\(keyIDHex.uppercased()):\(ivHex.uppercased())"), try parse("skd://\(keyIDHex):\(ivHex)"))
        XCTAssertEqual(try parse("skd://AaBbCcDdEeFf00112233445566778899").keyID,
                       [0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99])
    }

    /// Asserts `uri` is refused with `code` on line 4, the message quoting the URI and `mentions`.
    func assertSKDRefused(_ uri: String, _ code: HLSError.Code, mentions: String,
                          file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try parse(uri), uri, file: file, line: line) { error in
            guard let error = error as? HLSError else { return XCTFail("not an HLSError: \(error)", file: file, line: line) }
            XCTAssertEqual(error.code, code, error.message, file: file, line: line)
            XCTAssertEqual(error.line, 4, file: file, line: line)
            XCTAssertTrue(error.message.contains("'\(uri)'"), "'\(error.message)' does not name the URI", file: file, line: line)
            XCTAssertTrue(error.message.contains(mentions), "'\(error.message)' does not mention '\(mentions)'", file: file, line: line)
        }
    }

    /// FairPlay streams name keys by any text (`skd://someuri`); the original platform passes
    /// it to its key server as it is, so an id that is not 32 hex digits is its UTF-8 bytes.
    /// (These were refused before the opaque form was read.)
    func testAnIDThatIsNot32HexDigitsIsOpaqueText() throws {
        for text in ["someuri", String(keyIDHex.dropLast(2)), keyIDHex + "00", String(keyIDHex.dropLast(2)) + "zz",
                     "0x" + keyIDHex, "0011223-4455-6677-8899-aabbccddeeff", "asset-42?token=abc", "fps.example.com:443/k?id=7", "clé"] {
            let uri = try parse("skd://" + text)
            XCTAssertEqual(uri.keyID, Array(text.utf8), text)
            XCTAssertNil(uri.iv, text)
        }
        // The hex form keeps its IV; an opaque id takes one only in the hex form of an IV.
        let withIV = try parse("skd://someuri:0x\(ivHex)")
        XCTAssertEqual(withIV.keyID, Array("someuri".utf8))
        XCTAssertEqual(withIV.iv, iv)
        XCTAssertEqual(try parse("skd://someuri:\(ivHex)").iv, iv)
    }

    func testOpaqueIDsAreLimitedAndNeverEmpty() throws {
        let longest = String(repeating: "k", count: SKDURI.maxOpaqueKeyIDBytes)
        XCTAssertEqual(try parse("skd://" + longest).keyID.count, 256)
        // The message quotes the first 200 characters of a URI this long.
        XCTAssertThrowsError(try parse("skd://" + longest + "k")) { error in
            XCTAssertEqual((error as? HLSError)?.code, .invalidURI)
            XCTAssertTrue("\(error)".hasSuffix("': key id is 257 bytes; the limit is 256"), "\(error)")
        }
        // Counted in bytes: 128 two-byte characters are 256 bytes, 129 are too many.
        XCTAssertEqual(try parse("skd://" + String(repeating: "é", count: 128)).keyID.count, 256)
        assertSKDRefused("skd://" + String(repeating: "é", count: 129), .invalidURI, mentions: "258 bytes")
        assertSKDRefused("skd://", .invalidURI, mentions: "empty key id")
        assertSKDRefused("skd://skd://", .invalidURI, mentions: "empty key id")
        assertSKDRefused("skd://:0x\(ivHex)", .invalidURI, mentions: "empty key id")
        // Written as an IV, so an IV of the wrong length, whatever the id.
        assertSKDRefused("skd://someuri:0x1234", .invalidIV, mentions: "IV '0x1234'")
    }

    func testThreeComponentsAreRefused() {
        assertSKDRefused("skd://\(keyIDHex):\(ivHex):extra", .invalidURI, mentions: "skd://KEYID or skd://KEYID:IV")
        // An empty IV is still a second component, and not 16 bytes.
        assertSKDRefused("skd://\(keyIDHex):", .invalidIV, mentions: "IV ''")
    }

    func testBadIVsAreRefused() {
        assertSKDRefused("skd://\(keyIDHex):0x\(ivHex.dropLast(2))", .invalidIV, mentions: "IV '0x\(ivHex.dropLast(2))'")
        assertSKDRefused("skd://\(keyIDHex):\(ivHex)00", .invalidIV, mentions: "32 hex digits")
        assertSKDRefused("skd://\(keyIDHex):\(ivHex.dropLast(1))g", .invalidIV, mentions: "IV")
    }

    // MARK: - EXT-X-KEY in a media playlist

    let mediaBase = "https://cdn.example.com/show/ep1/mid/index.m3u8"

    func media(key: String) throws -> MediaPlaylist {
        try parseMedia("#EXTM3U\n#EXT-X-TARGETDURATION:4\n\(key)\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n", baseURL: mediaBase)
    }

    /// An skd:// URI is not a URL to fetch: resolving it against the playlist's https base would
    /// turn it into a path on the CDN, so it must stay exactly as written.
    func testSKDURIIsKeptAsGivenWithItsKeyID() throws {
        let playlist = try media(key: #"#EXT-X-KEY:METHOD=AES-128,URI="skd://\#(keyIDHex)",KEYFORMAT="com.apple.streamingkeydelivery""#)
        let key = try XCTUnwrap(playlist.segments[0].key)
        XCTAssertEqual(key, SegmentKey(method: .aes128, uri: "skd://" + keyIDHex, iv: nil,
                                       keyFormat: "com.apple.streamingkeydelivery", licenseKeyID: keyID))
        XCTAssertTrue(key.isSKD)
    }

    func testTheURIsIVIsUsedWhenThereIsNoIVAttribute() throws {
        let playlist = try media(key: #"#EXT-X-KEY:METHOD=AES-128,URI="skd://\#(keyIDHex):\#(ivHex)""#)
        XCTAssertEqual(playlist.segments[0].key?.iv, iv)
        XCTAssertEqual(playlist.segments[0].key?.uri, "skd://\(keyIDHex):\(ivHex)")
        XCTAssertEqual(playlist.segments[0].key?.licenseKeyID, keyID)
    }

    func testTheIVAttributeWinsOverTheURIsIV() throws {
        let playlist = try media(key: #"#EXT-X-KEY:METHOD=AES-128,URI="skd://\#(keyIDHex):\#(ivHex)",IV=0x000102030405060708090A0B0C0D0E0F"#)
        XCTAssertEqual(playlist.segments[0].key?.iv, Array(0...15))
    }

    func testKeyIDAttributeOnAnHTTPKeySetsTheLicenseKeyID() throws {
        let playlist = try media(key: "#EXT-X-KEY:METHOD=AES-128,URI=\"keys/k1\",KEYID=0x\(keyIDHex.uppercased())")
        let key = try XCTUnwrap(playlist.segments[0].key)
        XCTAssertEqual(key.uri, "https://cdn.example.com/show/ep1/mid/keys/k1", "an http key is still resolved")
        XCTAssertEqual(key.licenseKeyID, keyID)
        XCTAssertFalse(key.isSKD)
        // Without KEYID the key has no licence id: only its URL can give it.
        XCTAssertNil(try media(key: "#EXT-X-KEY:METHOD=AES-128,URI=\"keys/k1\"").segments[0].key?.licenseKeyID)
    }

    func testBadKeyIDAttributesAreRefused() {
        let playlist = { (keyID: String) in
            "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\",KEYID=\(keyID)\n#EXTINF:4,\na.ts\n"
        }
        assertRefused(playlist("0x0011"), .invalidAttribute, line: 3, mentions: "KEYID '0x0011'")
        assertRefused(playlist("0x\(keyIDHex)00"), .invalidAttribute, line: 3, mentions: "KEYID")
        assertRefused(playlist(keyIDHex), .invalidAttribute, line: 3, mentions: "0x followed by 32 hex digits")
        assertRefused(playlist("0x\(keyIDHex.dropLast(1))g"), .invalidAttribute, line: 3, mentions: "KEYID")
    }

    func testABadSKDURIIsRefusedWithItsLine() {
        assertRefused("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=AES-128,URI=\"skd://\"\n#EXTINF:4,\na.ts\n",
                      .invalidURI, line: 3, mentions: "'skd://'")
        assertRefused("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=AES-128,URI=\"skd://\(keyIDHex):0x12\"\n#EXTINF:4,\na.ts\n",
                      .invalidIV, line: 3, mentions: "IV '0x12'")
    }

    // MARK: - The package

    let root = "https://cdn.example.com/show/ep1/"

    func plan(_ body: String) throws -> PackagePlan {
        let uri = root + "v/index.m3u8"
        let media = try parseMedia("#EXTM3U\n#EXT-X-TARGETDURATION:4\n" + body + "\n#EXT-X-ENDLIST\n", baseURL: uri)
        return try PackagePlan.make(masterURI: uri, selection: nil, media: [uri: media])
    }

    func testThePlanKeepsLicenseKeyIDsAndWritesTheURIsIV() throws {
        let plan = try plan("""
            #EXT-X-KEY:METHOD=AES-128,URI="skd://\(keyIDHex):\(ivHex)",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
            #EXTINF:4,
            a.ts
            #EXT-X-KEY:METHOD=AES-128,URI="k2",KEYID=0x\(ivHex)
            #EXTINF:4,
            b.ts
            """)
        XCTAssertEqual(plan.keys, [
            PackageKey(uri: "skd://\(keyIDHex):\(ivHex)", path: "video/key0.key", licenseKeyID: keyID),
            PackageKey(uri: root + "v/k2", path: "video/key1.key", licenseKeyID: iv),
        ])
        XCTAssertTrue(plan.keys[0].isSKD)
        XCTAssertFalse(plan.keys[1].isSKD)
        let body = try XCTUnwrap(plan.playlists.first { $0.path == "video/index.m3u8" }?.text)
        // A player of the package reads the IV from the local playlist only; the skd:// URI is gone.
        XCTAssertTrue(body.contains("#EXT-X-KEY:METHOD=AES-128,URI=\"key0.key\",IV=0x\(ivHex.uppercased())\n"), body)
        XCTAssertTrue(body.contains("#EXT-X-KEY:METHOD=AES-128,URI=\"key1.key\"\n"), body)
        XCTAssertFalse(body.contains("skd://"), body)
        XCTAssertFalse(body.contains("KEYFORMAT"), "the local key file is a raw key: \(body)")
        let local = try LocalMediaPlaylist.parse(body)
        XCTAssertEqual(local.segments.map(\.keyPath), ["key0.key", "key1.key"])
        XCTAssertEqual(local.segments[0].iv, iv)
    }

    func testAnOpaqueIDIsTheLicenceKeyIDOfItsKey() throws {
        let plan = try plan("#EXT-X-KEY:METHOD=AES-128, URI=\"skd://someuri\", KEYFORMAT=\"com.apple.streamingkeydelivery\"\n#EXTINF:4,\na.ts")
        XCTAssertEqual(plan.keys, [PackageKey(uri: "skd://someuri", path: "video/key0.key", licenseKeyID: Array("someuri".utf8))])
        XCTAssertTrue(plan.keys[0].isSKD)
    }

    func testFairPlayKeyFormatIsAcceptedForLicenceKeysOnly() throws {
        let format = "KEYFORMAT=\"com.apple.streamingkeydelivery\""
        XCTAssertEqual(try plan("#EXT-X-KEY:METHOD=AES-128,URI=\"skd://\(keyIDHex)\",\(format)\n#EXTINF:4,\na.ts").keys.count, 1)
        XCTAssertEqual(try plan("#EXT-X-KEY:METHOD=AES-128,URI=\"k\",KEYID=0x\(keyIDHex),\(format)\n#EXTINF:4,\na.ts").keys.count, 1,
                       "an http key with a KEYID comes from the licence server too")
        // A plain http key in that format holds no raw AES key stash could use.
        XCTAssertThrowsError(try plan("#EXT-X-KEY:METHOD=AES-128,URI=\"k\",\(format)\n#EXTINF:4,\na.ts")) { error in
            guard let error = error as? HLSError else { return XCTFail("not an HLSError: \(error)") }
            XCTAssertEqual(error.code, .unsupported, error.message)
            XCTAssertTrue(error.message.contains("com.apple.streamingkeydelivery"), error.message)
            XCTAssertTrue(error.message.contains(self.root + "v/index.m3u8"), error.message)
        }
    }
}
