import Foundation
import StashTestSupport
import XCTest

@testable import StashEngine

/// The sizes the start's fast verify reads, on a real folder: enough paths that the probe's
/// threads share them, each answer in its own place, and what is not a regular file is nil.
final class FileSizeProbeTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-probe")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func testManyPathsGetTheirOwnSizesAcrossTheThreads() throws {
        // Over `width` batches, so every thread takes some; sizes differ so a size written to
        // a neighbour's place shows.
        let count = FileSizeProbe.width * FileSizeProbe.batch * 2 + 37
        var paths: [String] = []
        var expected: [Int64?] = []
        for number in 0..<count {
            let folderName = "d\(number)"
            let path = folderName + "/f.bin"
            paths.append(path)
            switch number % 5 {
            case 0:
                expected.append(nil)  // never made
            case 1:
                try FileManager.default.createDirectory(atPath: "\(folder)/\(path)", withIntermediateDirectories: true)
                expected.append(nil)  // a folder where a file was expected
            case 2:
                try FileManager.default.createDirectory(atPath: "\(folder)/\(folderName)", withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(atPath: "\(folder)/\(path)", withDestinationPath: "/etc/hostname")
                expected.append(nil)  // a symlink is not followed
            default:
                try FileManager.default.createDirectory(atPath: "\(folder)/\(folderName)", withIntermediateDirectories: true)
                let size = number % 997
                try Data(repeating: UInt8(number % 251), count: size).write(to: URL(fileURLWithPath: "\(folder)/\(path)"))
                expected.append(Int64(size))
            }
        }
        let sizes = FileSizeProbe.sizes(of: paths, under: folder)
        XCTAssertEqual(sizes.count, count)
        for index in 0..<count where sizes[index] != expected[index] {
            XCTFail("\(paths[index]): \(String(describing: sizes[index])), expected \(String(describing: expected[index]))")
        }
    }

    func testAFewPathsAndNoPaths() throws {
        try Data(repeating: 7, count: 12).write(to: URL(fileURLWithPath: "\(folder)/one"))
        XCTAssertEqual(FileSizeProbe.sizes(of: ["one", "two"], under: folder), [12, nil])
        XCTAssertEqual(FileSizeProbe.sizes(of: [], under: folder), [])
    }

    func testAFolderThatCannotBeOpenedGivesNilForEveryPath() {
        XCTAssertEqual(FileSizeProbe.sizes(of: ["a", "b"], under: folder + "/missing"), [nil, nil])
    }
}
