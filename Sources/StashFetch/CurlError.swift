import CCurl

/// A libcurl call that failed while a handle was being set up or driven (not a transfer
/// outcome: those become `FetchFailure`s).
struct CurlError: Error, CustomStringConvertible {
    let call: String
    let message: String

    var description: String { "\(call) failed: \(message)" }

    /// The one place easy-interface return codes are checked.
    static func check(_ code: CURLcode, _ call: @autoclosure () -> String) throws {
        guard code != CURLE_OK else { return }
        throw CurlError(call: call(), message: "\(String(cString: curl_easy_strerror(code))) (CURLcode \(code.rawValue))")
    }

    /// The one place multi-interface return codes are checked.
    static func check(_ code: CURLMcode, _ call: @autoclosure () -> String) throws {
        guard code != CURLM_OK else { return }
        throw CurlError(call: call(), message: "\(String(cString: curl_multi_strerror(code))) (CURLMcode \(code.rawValue))")
    }
}
