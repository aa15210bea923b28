/// Why a test could not start or find a stash binary; the message says what to do.
package struct DaemonProcessError: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
