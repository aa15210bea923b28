import XCTest

@testable import stash

/// The CLI's JSON strings: a string with nothing to escape goes in whole, any other is
/// escaped character by character, and both read back as the string they were made from.
final class JSONTextTests: XCTestCase {
    func testStringsReadBackAsTheyWere() throws {
        let strings = [
            "", "plain", "http://127.0.0.1:8000/small/f0001.bin", "été 日本 🎬", "quote \" here", "back\\slash",
            "line\nfeed\r\t", "bell\u{07} and nul \u{00} and unit \u{1F}", "del \u{7F} stays", "mixed é \" \u{01}",
        ]
        for string in strings {
            var text = ""
            JSONText.appendString(string, to: &text)
            let decoded = try JSONSerialization.jsonObject(with: Data("[\(text)]".utf8)) as? [String]
            XCTAssertEqual(decoded, [string], "\(text)")
        }
    }

    func testWhatIsEscapedAndWhatIsNot() {
        func json(_ string: String) -> String {
            var text = ""
            JSONText.appendString(string, to: &text)
            return text
        }
        XCTAssertEqual(json("http://h/a b/é"), "\"http://h/a b/é\"")
        XCTAssertEqual(json("a\"b\\c"), "\"a\\\"b\\\\c\"")
        XCTAssertEqual(json("\n\r\t\u{01}"), "\"\\n\\r\\t\\u0001\"")
        XCTAssertEqual(json("é\u{1F}"), "\"é\\u001f\"")
    }

    /// Every type a record holds, whether taken by its metadata (String, Int, Int64, Bool,
    /// NSNull, objects) or by a cast (the rest), is written as the JSON it stands for.
    func testEveryValueTypeIsWrittenAsItsJSON() {
        let record: [String: Any] = [
            "s": "a\"b", "i": -3, "l": Int64.max, "u": UInt64.max, "h": Int32(7), "t": true, "f": false, "n": NSNull(),
            "d": 1.5, "inf": Double.infinity, "o": ["k": 1, "a": "x"] as [String: Any],
            "files": [["path": "p", "size": NSNull()] as [String: Any]], "list": [1, "two"] as [Any],
        ]
        var text = ""
        JSONText.append(record, to: &text)
        XCTAssertEqual(
            text,
            #"{"d":1.5,"f":false,"files":[{"path":"p","size":null}],"h":7,"i":-3,"inf":null,"l":9223372036854775807,"#
                + #""list":[1,"two"],"n":null,"o":{"a":"x","k":1},"s":"a\"b","t":true,"u":18446744073709551615}"#)
    }
}
