/// Why a test certificate could not be made: the message names the openssl command and what
/// it wrote to stderr.
package struct TestCertificateError: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
