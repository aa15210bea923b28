/// A property's value as read off the bus: the basic types stash reads, and the signature of
/// anything else, so a value of the wrong type is reported rather than misread.
package enum BusValue: Equatable, Sendable {
    case bool(Bool)
    case uint32(UInt32)
    case int32(Int32)
    case string(String)
    /// A value of a type stash does not read, by its D-Bus signature.
    case other(signature: String)

    package var signature: String {
        switch self {
        case .bool: return "b"
        case .uint32: return "u"
        case .int32: return "i"
        case .string: return "s"
        case .other(let signature): return signature
        }
    }
}
