/// Names one transfer of a `FetchWorkers`; never reused by the same instance.
public struct TransferID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public var description: String { "transfer-\(rawValue)" }
}
