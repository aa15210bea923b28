import StashCore
import XCTest

final class URLSecretsTests: XCTestCase {
    func testQueriesFragmentsAndCredentialsLeaveEveryURLInATextAndTheRestStays() {
        let message = "HTTP 503 from https://cdn.example.com/v/seg1.ts?token=abc&exp=1 (retrying); see http://user:pw@h:8080/a#frag or HTTPS://X.example/p?sig=1"
        XCTAssertEqual(message.withoutURLSecrets,
                       "HTTP 503 from https://cdn.example.com/v/seg1.ts?… (retrying); see http://h:8080/a?… or HTTPS://X.example/p?…")
    }

    func testTextWithoutSecretsIsUnchanged() {
        for text in ["", "http", "httpx://a?b", "the file http://h/x.bin (1 of 2)", "https://h", "hhttp://h/p?q", "ftp://h/p?q=1"] {
            let expected = text == "hhttp://h/p?q" ? "hhttp://h/p?…" : text
            XCTAssertEqual(text.withoutURLSecrets, expected, text)
        }
    }

    func testAURLInParenthesesEndsAtTheParenthesis() {
        XCTAssertEqual("failed (http://h/a?k=v)".withoutURLSecrets, "failed (http://h/a?…)")
    }
}
