import XCTest
@testable import StashHLS

let base = "https://cdn.example.com/show/ep1/master.m3u8"

func parseMaster(_ text: String, baseURL: String = base, file: StaticString = #filePath, line: UInt = #line) throws -> MasterPlaylist {
    guard case .master(let master) = try Playlist.parse(text, baseURL: baseURL) else {
        XCTFail("expected a master playlist", file: file, line: line)
        throw HLSError(.missingTag, line: nil, "not a master playlist")
    }
    return master
}

func parseMedia(_ text: String, baseURL: String = base, file: StaticString = #filePath, line: UInt = #line) throws -> MediaPlaylist {
    guard case .media(let media) = try Playlist.parse(text, baseURL: baseURL) else {
        XCTFail("expected a media playlist", file: file, line: line)
        throw HLSError(.missingTag, line: nil, "not a media playlist")
    }
    return media
}

/// Asserts the parse fails with `code` on `line`, and that the message names the line and `mentions`.
func assertRefused(_ text: String, _ code: HLSError.Code, line expectedLine: Int?, mentions: String,
                   file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertThrowsError(try Playlist.parse(text, baseURL: base), file: file, line: line) { error in
        guard let error = error as? HLSError else { return XCTFail("not an HLSError: \(error)", file: file, line: line) }
        XCTAssertEqual(error.code, code, error.message, file: file, line: line)
        XCTAssertEqual(error.line, expectedLine, error.message, file: file, line: line)
        if let expectedLine {
            XCTAssertTrue(error.message.hasPrefix("line \(expectedLine): "), error.message, file: file, line: line)
        }
        XCTAssertTrue(error.message.contains(mentions), "'\(error.message)' does not mention '\(mentions)'", file: file, line: line)
    }
}
