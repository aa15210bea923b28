/// Why an HLS fixture could not be made or measured: the message names the tool, its
/// arguments and the tail of what it wrote to stderr.
public struct HLSFixtureError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
