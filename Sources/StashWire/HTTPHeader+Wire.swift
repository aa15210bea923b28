import CStashProto
import StashCore

extension HTTPHeader {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__Header> {
        var message = Stash__V1__Header()
        stash__v1__header__init(&message)
        message.name = arena.cString(name)
        message.value = arena.cString(value)
        return arena.store(message)
    }

    init(wire message: UnsafeMutablePointer<Stash__V1__Header>?) throws {
        let message = try WireValue.message(message, field: "Header")
        self.init(
            name: try WireValue.string(message.pointee.name, field: "Header.name"),
            value: try WireValue.string(message.pointee.value, field: "Header.value"))
    }
}
