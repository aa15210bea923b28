/// Why the CENC boxes of an encrypted DASH segment could not be read: malformed (a size or
/// count that does not fit its box or its sample) or a form of CENC stash does not decrypt.
package struct CENCError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        case malformed
        /// A scheme other than 'cenc' ('cbcs', 'cens', 'cbc1'), key rotation by sample
        /// groups, or sample information outside a senc box.
        case unsupported
    }

    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code.rawValue): \(message)" }
}
