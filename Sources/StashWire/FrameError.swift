/// A frame that breaks the framing rules of PROTOCOL.md. After any of these the byte stream
/// cannot be trusted: the daemon answers with an error Response and closes (PROTOCOL.md, Limits).
package enum FrameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The length prefix was 0; every message has at least one field set.
    case emptyFrame
    /// The length prefix announced more bytes than the receiver accepts.
    case frameTooLarge(length: Int, limit: Int)
    /// The stream ended inside a frame: `expected` bytes were announced (prefix included, or
    /// just the 4-byte prefix when it was cut short), `received` arrived.
    case truncatedFrame(expected: Int, received: Int)

    package var description: String {
        switch self {
        case .emptyFrame:
            return "frame length 0 is invalid; a frame carries at least 1 byte of message"
        case .frameTooLarge(let length, let limit):
            return "frame length \(length) bytes is above the limit of \(limit) bytes"
        case .truncatedFrame(let expected, let received):
            return "stream ended inside a frame: \(received) of \(expected) bytes received"
        }
    }
}
