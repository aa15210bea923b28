/// Why a test certificate could not be made: the message names the openssl command and what
/// it wrote to stderr.
public struct TestCertificateError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
