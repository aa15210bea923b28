import Foundation
import StashFuzz
import XCTest

/// Every seed of `fuzz/corpus/TARGET` and every input the fuzzer once crashed on
/// (`fuzz/regressions/TARGET`) goes through its target again: one that traps kills this test.
final class FuzzCorpusTests: XCTestCase {
    private static let fuzzDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fuzz")

    private func inputs(_ kind: String, _ target: FuzzTarget) -> [URL] {
        let folder = Self.fuzzDirectory.appendingPathComponent(kind).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
    }

    func testEverySeedAndRegressionInputRunsThroughItsTarget() throws {
        for target in FuzzTarget.allCases {
            let seeds = inputs("corpus", target)
            XCTAssertFalse(seeds.isEmpty, "fuzz/corpus/\(target.rawValue) has no seeds")
            for file in seeds + inputs("regressions", target) {
                let data = try Data(contentsOf: file)
                data.withUnsafeBytes { target.run($0) }
            }
        }
    }

    func testExtremesOfEveryTargetAreHandled() {
        let extremes: [[UInt8]] = [
            [], [0], [0xFF, 0xFF, 0xFF, 0xFF], Array(repeating: 0xFF, count: 4096),
            Array("HTTP/1.1 206 x\r\nContent-Range: bytes 0-9223372036854775807/9223372036854775807\r\n".utf8),
            Array("HTTP/1.1 206 x\r\nContent-Range: bytes 9223372036854775807-9223372036854775807/*\r\nContent-Length: -1\r\n".utf8),
            Array("#EXTM3U\n#EXT-X-TARGETDURATION:9223372036854775807\n#EXT-X-MEDIA-SEQUENCE:18446744073709551615\n#EXTINF:1e308,\na.ts\n#EXTINF:1,\nb.ts\n#EXT-X-ENDLIST\n".utf8),
            Array(String(repeating: "[", count: 100_000).utf8),
        ]
        for target in FuzzTarget.allCases {
            for input in extremes { input.withUnsafeBytes { target.run($0) } }
        }
    }
}
