/// Why a test could not start or find a stash binary; the message says what to do.
public struct DaemonProcessError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
