import CStashProto
import StashCore

/// The one mapping between `StashError` and the wire `Status`. A Response's status is either
/// OK (success) or an error code with its message.
extension StashError {
    /// The status of a successful Response. It is always sent, so that C clients, which see
    /// an unset submessage as NULL, can read `status->code` without a check.
    static func okStatus(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__Status> {
        var message = Stash__V1__Status()
        stash__v1__status__init(&message)
        return arena.store(message)
    }

    func wireStatus(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__Status> {
        var message = Stash__V1__Status()
        stash__v1__status__init(&message)
        // A failure must never read as success on the other side.
        let code = self.code == .ok ? Code.internal : self.code
        message.code = Stash__V1__StatusCode(rawValue: numericCast(code.rawValue))
        message.message = arena.cString(self.message)
        return arena.store(message)
    }

    /// nil when the status is OK or absent (proto3 reads an absent Status as code 0, OK). A
    /// code this version does not know becomes INTERNAL, keeping the number in the message.
    init?(wireStatus status: UnsafePointer<Stash__V1__Status>?) throws {
        guard let status, status.pointee.code.rawValue != 0 else { return nil }
        let raw = Int32(truncatingIfNeeded: status.pointee.code.rawValue)
        let message = try WireValue.string(status.pointee.message, field: "Status.message")
        if let code = Code(rawValue: Int(raw)) {
            self.init(code, message)
        } else {
            self.init(.internal, "unknown status code \(raw): \(message)")
        }
    }
}
