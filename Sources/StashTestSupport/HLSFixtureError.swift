/// Why an HLS fixture could not be made or measured: the message names the tool, its
/// arguments and the tail of what it wrote to stderr.
package struct HLSFixtureError: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
