/// A condition a test waited for did not come in time. Thrown out of a test method, XCTest
/// reports it as the failure, with what was awaited.
package struct WaitTimeout: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
