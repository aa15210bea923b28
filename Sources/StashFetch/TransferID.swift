/// Names one transfer of a `FetchWorkers`; never reused by the same instance.
package struct TransferID: Hashable, Sendable, CustomStringConvertible {
    package let rawValue: UInt64

    package init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    package var description: String { "transfer-\(rawValue)" }
}
