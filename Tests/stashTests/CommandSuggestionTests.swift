@testable import stash
import XCTest

final class CommandSuggestionTests: XCTestCase {
    func testAMistypedCommandGetsTheNearest() throws {
        for (typed, expected) in [("lst", ["ls"]), ("list", ["ls"]), ("lsit", ["ls"]), ("sow", ["show"]), ("can", ["cancel"]),
                                  ("licence", ["license"]), ("subtitle", ["subtitles"]), ("rm", [])] {
            let suggestion = try XCTUnwrap(CommandSuggestion.find(in: [typed, "x"]), typed)
            XCTAssertEqual(suggestion.unknown, typed)
            XCTAssertEqual(suggestion.nearest, expected, typed)
        }
    }

    func testCommandsUnderAGroupAndOptionsBeforeThem() throws {
        let nested = try XCTUnwrap(CommandSuggestion.find(in: ["--json", "config", "gte", "max-parallel"]))
        XCTAssertEqual(nested.path, "stash config")
        XCTAssertEqual(nested.nearest, ["get"])
        XCTAssertEqual(nested.message, "'gte' is not a command of 'stash config'; did you mean 'stash config get'? (see 'stash config --help')")
        // The word after --socket is its value, not a command.
        XCTAssertNil(CommandSuggestion.find(in: ["--socket", "lst", "ls"]))
    }

    func testKnownCommandsAndTheirArgumentsAreNoSuggestion() {
        for arguments in [["ls", "--state", "lst"], ["show", "lst"], ["help", "ls"], ["license", "get", "x"], ["--", "lst"], []] {
            XCTAssertNil(CommandSuggestion.find(in: arguments), "\(arguments)")
        }
    }

    func testNothingNearListsTheCommands() throws {
        let suggestion = try XCTUnwrap(CommandSuggestion.find(in: ["frobnicate"]))
        XCTAssertTrue(suggestion.message.hasPrefix("'frobnicate' is not a command of 'stash'; the commands are add, ls, show,"), suggestion.message)
    }
}
