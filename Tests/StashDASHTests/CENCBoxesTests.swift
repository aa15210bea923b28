import StashDASH
import XCTest

/// CENC initialization segments and fragments read box by box: what they protect, where each
/// sample's protected bytes are, and every size, count and offset that does not fit refused by
/// name, never read past the end.
final class CENCBoxesTests: XCTestCase {
    private let kid: [UInt8] = Array(0x20..<0x30)

    private func be(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    private func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be(UInt64(8 + payload.count), 4) + Array(type.utf8) + payload }

    private func full(_ type: String, flags: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] { box(type, be(UInt64(flags), 4) + payload) }

    /// An initialization segment of one encv track (id 7) protected by `scheme`.
    private func initialization(scheme: String = "cenc", ivSize: UInt8 = 8) -> [UInt8] {
        let tenc = full("tenc", [0, 0, 1, ivSize] + kid)
        let sinf = box("sinf", box("frma", Array("avc1".utf8)) + full("schm", Array(scheme.utf8) + be(0x10000, 4)) + box("schi", tenc))
        let entry = box("encv", [UInt8](repeating: 0, count: 78) + box("avcC", [1, 2, 3]) + sinf)
        let stsd = full("stsd", be(1, 4) + entry)
        let tkhd = full("tkhd", be(0, 8) + be(7, 4) + [UInt8](repeating: 0, count: 72))
        let trak = box("trak", tkhd + box("mdia", box("minf", box("stbl", stsd))))
        return box("ftyp", Array("isom".utf8) + be(0, 4)) + box("moov", trak + full("pssh", [UInt8](repeating: 9, count: 20)))
    }

    /// A fragment of track 7: two samples of 40 and 24 bytes, each with subsamples `(clear,
    /// protected)`, sizes in the trun, the data offset from the moof's start.
    private func fragment(sampleCount: UInt32 = 2, sencCount: UInt32 = 2, subsamples: [(UInt16, UInt32)] = [(5, 35), (4, 20)],
                          dataOffset: Int32? = nil, sizes: [UInt32] = [40, 24]) -> [UInt8] {
        let tfhd = full("tfhd", flags: 0x02_0000, be(7, 4))
        var senc = be(UInt64(sencCount), 4)
        for (index, (clear, secret)) in subsamples.enumerated() {
            senc += be(UInt64(index + 1), 8) + be(1, 2) + be(UInt64(clear), 2) + be(UInt64(secret), 4)
        }
        func moof(_ offset: Int32) -> [UInt8] {
            let trun = full("trun", flags: 0x201, be(UInt64(sampleCount), 4) + be(UInt64(UInt32(bitPattern: offset)), 4) + sizes.flatMap { be(UInt64($0), 4) })
            let traf = box("traf", tfhd + trun + full("saiz", [8] + be(2, 4)) + full("saio", be(1, 4) + be(0, 4)) + full("senc", flags: 0x2, senc))
            return box("moof", box("mfhd", be(0, 4) + be(1, 4)) + traf)
        }
        let offset = dataOffset ?? Int32(moof(0).count + 8)
        return moof(offset) + box("mdat", [UInt8](repeating: 0xAA, count: min(64, sizes.reduce(0) { $0 + Int($1) })))
    }

    func testTheInitializationSegmentNamesItsTrackAndIsMadeClearInPlace() throws {
        let protected = initialization()
        let (clear, tracks) = try CENCInit.clear(protected)
        XCTAssertEqual(tracks, [ProtectedTrack(trackID: 7, scheme: "cenc", keyID: kid, ivSize: 8)])
        XCTAssertEqual(clear.count, protected.count)
        let text = String(decoding: clear.map { $0 < 0x20 || $0 > 0x7e ? UInt8(ascii: ".") : $0 }, as: UTF8.self)
        XCTAssertTrue(text.contains("avc1"), text)
        XCTAssertFalse(text.contains("encv") || text.contains("sinf") || text.contains("pssh"), text)
    }

    func testOtherSchemesAreRefusedByName() {
        XCTAssertThrowsError(try CENCInit.clear(initialization(scheme: "cbcs"))) { error in
            XCTAssertEqual((error as? CENCError)?.code, .unsupported)
            XCTAssertTrue("\(error)".contains("'cbcs'"), "\(error)")
        }
        XCTAssertThrowsError(try CENCInit.clear(initialization(ivSize: 12))) { error in
            XCTAssertEqual((error as? CENCError)?.code, .malformed)
            XCTAssertTrue("\(error)".contains("IV size 12"), "\(error)")
        }
    }

    func testEachSampleProtectsWhatItsSubsamplesSay() throws {
        let bytes = fragment()
        let read = try CENCFragment(bytes, tracks: [ProtectedTrack(trackID: 7, scheme: "cenc", keyID: kid, ivSize: 8)])
        let mdat = bytes.count - 64
        XCTAssertEqual(read.samples.map(\.protected), [[mdat + 5..<mdat + 40], [mdat + 44..<mdat + 64]])
        XCTAssertEqual(read.samples[1].counter, be(2, 8) + be(0, 8))
        XCTAssertEqual(read.bytes.count, bytes.count)
        let text = String(decoding: read.bytes.map { $0 < 0x20 || $0 > 0x7e ? UInt8(ascii: ".") : $0 }, as: UTF8.self)
        XCTAssertFalse(text.contains("senc") || text.contains("saiz") || text.contains("saio"), text)
        // Samples said to be encrypted in a track the initialization segment does not protect
        // are refused, not copied as if they were clear.
        XCTAssertThrowsError(try CENCFragment(bytes, tracks: [])) { error in
            XCTAssertTrue("\(error)".contains("protects no track 7"), "\(error)")
        }
        XCTAssertTrue(CENCInit.isInitialization(initialization()))
        XCTAssertFalse(CENCInit.isInitialization(bytes))
    }

    func testHostileNumbersAreRefusedByName() {
        let track = [ProtectedTrack(trackID: 7, scheme: "cenc", keyID: kid, ivSize: 8)]
        let cases: [(String, [UInt8])] = [
            ("passes the end", fragment(subsamples: [(5, 36), (4, 20)])),
            ("cover", fragment(subsamples: [(5, 30), (4, 20)])),
            ("sample_count other than the 2", fragment(sencCount: 3)),
            ("sample_count 4294967295", fragment(sampleCount: .max)),
            ("outside the segment", fragment(dataOffset: -100_000)),
            ("past the segment", fragment(sizes: [40, 0xFFFF_FFF0])),
            ("has size", Array(fragment().dropLast(10))),
        ]
        for (words, bytes) in cases {
            XCTAssertThrowsError(try CENCFragment(bytes, tracks: track), words) { error in
                XCTAssertEqual((error as? CENCError)?.code, .malformed, words)
                XCTAssertTrue("\(error)".contains(words), "\(words): \(error)")
            }
        }
        var huge = initialization()
        huge.replaceSubrange(24..<28, with: [0xFF, 0xFF, 0xFF, 0xF0])
        XCTAssertThrowsError(try CENCInit.clear(huge)) { XCTAssertEqual(($0 as? CENCError)?.code, .malformed) }
    }
}
