import CAVFormat

/// A libav call that failed, or media the chosen container cannot hold. The one place libav's
/// negative return codes become Swift errors is `check`.
package struct RemuxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call's name and what it was called on (`avformat_open_input(audio/es)`).
    package var call: String
    /// libav's error code (a negative errno, or one of its own tags); 0 for a refusal of ours.
    package var code: Int32
    package var message: String

    package init(call: String, code: Int32, message: String) {
        self.call = call
        self.code = code
        self.message = message
    }

    package var description: String {
        code == 0 ? "\(call): \(message)" : "\(call) failed: \(message) (libav error \(code))"
    }

    /// Throws for a negative `code`: first what one of `io`'s callbacks met (a read of the
    /// package that failed, a full disk: libav only saw an error code), else the code with
    /// libav's text for it. Returns the (non-negative) result.
    @discardableResult
    static func check(_ code: Int32, _ call: @autoclosure () -> String, io: [MediaIO] = []) throws -> Int32 {
        guard code < 0 else { return code }
        for context in io {
            if let failure = context.failure { throw failure }
        }
        throw RemuxError(call: call(), code: code, message: text(of: code))
    }

    /// av_strerror's text for `code`.
    static func text(of code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        if av_strerror(code, &buffer, buffer.count) < 0 { return "unknown libav error" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
