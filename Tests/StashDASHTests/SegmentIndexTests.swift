import StashDASH
import XCTest

/// `sidx` boxes read into a SegmentBase representation's byte ranges.
final class SegmentIndexTests: XCTestCase {
    /// A sidx box: version, timescale, earliest time, first offset and (size, duration) references.
    private func sidx(version: UInt8 = 0, timescale: UInt32 = 1000, earliest: UInt64 = 0, firstOffset: UInt64 = 0,
                      references: [(size: UInt32, duration: UInt32)]) -> [UInt8] {
        var body: [UInt8] = [version, 0, 0, 0]
        body += be(1, 4) + be(UInt64(timescale), 4)
        body += version == 0 ? be(earliest, 4) + be(firstOffset, 4) : be(earliest, 8) + be(firstOffset, 8)
        body += be(0, 2) + be(UInt64(references.count), 2)
        for reference in references {
            body += be(UInt64(reference.size), 4) + be(UInt64(reference.duration), 4) + be(0x9000_0000, 4)
        }
        return be(UInt64(body.count + 8), 4) + Array("sidx".utf8) + body
    }

    private func be(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    private func base(indexAt offset: UInt64, length: UInt64) -> SegmentBase {
        SegmentBase(url: "https://cdn.example.com/v.mp4", initialization: MediaRange(offset: 0, length: offset),
                    indexRange: MediaRange(offset: offset, length: length), timescale: 1000, presentationTimeOffset: 0)
    }

    func testReferencesBecomeRangesAfterTheBox() throws {
        let box = sidx(firstOffset: 10, references: [(1000, 2000), (1500, 2000), (700, 1000)])
        let list = try base(indexAt: 800, length: UInt64(box.count)).segments(index: box)
        let first = 800 + UInt64(box.count) + 10
        XCTAssertEqual(list.initialization?.range, MediaRange(offset: 0, length: 800))
        XCTAssertEqual(list.media.map(\.range), [MediaRange(offset: first, length: 1000), MediaRange(offset: first + 1000, length: 1500),
                                                 MediaRange(offset: first + 2500, length: 700)])
        XCTAssertEqual(list.media.map(\.start), [0, 2, 4])
        XCTAssertEqual(list.media.map(\.duration), [2, 2, 1])
    }

    func testVersion1AndABoxBeforeTheIndex() throws {
        let free: [UInt8] = [0, 0, 0, 12] + Array("free".utf8) + [1, 2, 3, 4]
        let box = sidx(version: 1, timescale: 90000, earliest: 180_000, references: [(500, 90000)])
        let list = try base(indexAt: 100, length: UInt64(free.count + box.count)).segments(index: free + box)
        XCTAssertEqual(list.media.map(\.range), [MediaRange(offset: 100 + UInt64(free.count + box.count), length: 500)])
        XCTAssertEqual(list.media.map(\.start), [2])
    }

    func testHostileBoxesAreRefused() {
        let refusals: [([UInt8], DASHError.Code)] = [
            ([], .invalidIndex),
            (Array(sidx(references: [(1000, 2000)]).dropLast(3)), .invalidIndex),
            (sidx(timescale: 0, references: [(1, 1)]), .invalidIndex),
            (sidx(version: 2, references: [(1, 1)]), .invalidIndex),
            (sidx(references: []), .invalidIndex),
            (sidx(references: [(0x8000_0010, 1)]), .unsupported),
            (sidx(references: [(0, 1)]), .invalidIndex),
            (sidx(version: 1, firstOffset: UInt64(Int64.max), references: [(1, 1)]), .invalidIndex),
            (sidx(version: 1, earliest: UInt64.max, references: [(1, 1)]), .invalidIndex),
            ([0, 0, 0, 3] + Array("free".utf8), .invalidIndex),
            ([0, 0, 0, 1] + Array("free".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], .invalidIndex),
        ]
        for (bytes, code) in refusals {
            XCTAssertThrowsError(try base(indexAt: 10, length: 100).segments(index: bytes), "\(bytes.prefix(16))") { error in
                XCTAssertEqual((error as? DASHError)?.code, code, "\(error)")
            }
        }
        // An index range near the largest file position with a box before the sidx (the fuzzer's
        // first find: the room left was computed by subtraction past zero).
        let free: [UInt8] = [0, 0, 0, 16] + Array("free".utf8) + Array(repeating: 0, count: 8)
        XCTAssertThrowsError(try SegmentIndex(parsing: free + sidx(references: [(1, 1)]), offset: UInt64(Int64.max) - 10, presentationTimeOffset: 0))
        XCTAssertThrowsError(try SegmentBase(url: "https://x.example/v.mp4", initialization: nil, indexRange: nil, timescale: 1,
                                             presentationTimeOffset: 0).segments(index: []))
    }
}
