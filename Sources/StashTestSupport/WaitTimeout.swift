/// A condition a test waited for did not come in time. Thrown out of a test method, XCTest
/// reports it as the failure, with what was awaited.
public struct WaitTimeout: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
