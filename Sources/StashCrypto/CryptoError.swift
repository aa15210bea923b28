import CCrypto

/// A libcrypto call that failed: which call, and the reason libcrypto's error queue gave.
/// `check` is the one place a libcrypto return value becomes a Swift error.
package struct CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call's name, e.g. "EVP_DecryptFinal_ex".
    package var call: String
    /// libcrypto's own words for the failure, when its error queue had any.
    package var reason: String

    package init(call: String, reason: String) {
        self.call = call
        self.reason = reason
    }

    package var description: String {
        reason.isEmpty ? "\(call) failed" : "\(call) failed: \(reason)"
    }

    /// Returns `value`, or throws naming `call` when it is nil. The error queue is emptied
    /// either way, so a failure never leaks into the next call's reason.
    @discardableResult
    package static func check<Value>(_ call: String, _ value: Value?) throws(CryptoError) -> Value {
        defer { ERR_clear_error() }
        if let value { return value }
        let code = ERR_get_error()
        guard code != 0 else { throw CryptoError(call: call, reason: "") }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        let reason = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw CryptoError(call: call, reason: reason)
    }

    /// Checks an EVP-style result: 1 is success, anything else a failure.
    package static func check(_ call: String, status: Int32) throws(CryptoError) {
        try check(call, status == 1 ? () : nil)
    }
}
