import Foundation
import StashCore
import XCTest

@testable import StashEngine

/// `ExportFile`: the one file an export writes is at its name whole or nowhere, with or without
/// O_TMPFILE, and replaces what is there only when asked.
final class ExportFileWriteTests: XCTestCase {
    private func folder() throws -> FolderHandle {
        let path = NSTemporaryDirectory() + "stash-export-file-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return try FolderHandle.open(path, followingSymlink: false)
    }

    private func write(_ text: String, to file: ExportFile) throws {
        try DurableFile.writeAll(Array(text.utf8), to: file.descriptor, path: file.name)
    }

    func testNothingIsThereUntilTheCommitAndNothingStaysAfterADiscard() throws {
        for unnamed in [true, false] {
            let target = try folder()
            defer { target.release() }
            let file = try ExportFile(in: target, name: "film.mkv", unnamed: unnamed)
            try write("half", to: file)
            let meanwhile = try target.names()
            if unnamed {
                XCTAssertEqual(meanwhile, [], "O_TMPFILE: no name at all while it is written")
            } else {
                XCTAssertEqual(meanwhile.count, 1)
                XCTAssertTrue(meanwhile.first?.hasPrefix(".film.mkv.stash-export-") == true, "\(meanwhile)")
            }
            file.discard()
            XCTAssertEqual(try target.names(), [], "unnamed \(unnamed): a discard leaves nothing beside it either")

            let whole = try ExportFile(in: target, name: "film.mkv", unnamed: unnamed)
            try write("whole", to: whole)
            try whole.commit(replacing: false)
            XCTAssertEqual(try target.names(), ["film.mkv"], "unnamed \(unnamed)")
            XCTAssertEqual(try target.read("film.mkv"), Array("whole".utf8))
        }
    }

    func testAFileAtTheNameIsReplacedOnlyWhenAsked() throws {
        for unnamed in [true, false] {
            let target = try folder()
            defer { target.release() }
            let first = try ExportFile(in: target, name: "film.mp4", unnamed: unnamed)
            try write("first", to: first)
            try first.commit(replacing: false)

            let second = try ExportFile(in: target, name: "film.mp4", unnamed: unnamed)
            try write("second", to: second)
            XCTAssertThrowsError(try second.commit(replacing: false), "unnamed \(unnamed)") { error in
                XCTAssertEqual((error as? SystemCallError)?.errnoCode, EEXIST, "\(error)")
            }
            second.discard()
            XCTAssertEqual(try target.read("film.mp4"), Array("first".utf8), "unnamed \(unnamed): kept")
            XCTAssertEqual(try target.names(), ["film.mp4"], "unnamed \(unnamed): no temporary left")

            let third = try ExportFile(in: target, name: "film.mp4", unnamed: unnamed)
            try write("third", to: third)
            try third.commit(replacing: true)
            XCTAssertEqual(try target.read("film.mp4"), Array("third".utf8), "unnamed \(unnamed): replaced")
            XCTAssertEqual(try target.names(), ["film.mp4"], "unnamed \(unnamed)")
        }
    }
}
