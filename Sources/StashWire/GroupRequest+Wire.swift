import CStashProto

extension GroupRequest {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__GroupRequest> {
        var message = Stash__V1__GroupRequest()
        stash__v1__group_request__init(&message)
        message.group = arena.cString(group)
        message.include_failed = WireValue.bool(includeFailed)
        return arena.store(message)
    }

    /// `field` is the Request member it came in (`Request.pause_group`), for the error of an unset one.
    init(wire message: UnsafeMutablePointer<Stash__V1__GroupRequest>?, field: StaticString) throws {
        let m = try WireValue.message(message, field: field).pointee
        self.init(
            group: try WireValue.string(m.group, field: "GroupRequest.group"),
            includeFailed: WireValue.bool(m.include_failed))
    }
}
