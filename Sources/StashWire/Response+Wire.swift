import CStashProto
import Foundation
import StashCore

extension Response {
    func wire(in arena: PackArena, now: Date) -> UnsafeMutablePointer<Stash__V1__Response> {
        var message = Stash__V1__Response()
        stash__v1__response__init(&message)
        message.id = id
        switch result {
        case .success(let result):
            message.status = StashError.okStatus(in: arena)
            result.setWire(on: &message, in: arena, now: now)
        case .failure(let error):
            message.status = error.wireStatus(in: arena)
        }
        return arena.store(message)
    }

    /// A non-OK status wins over any result the peer also set.
    init(wire message: UnsafePointer<Stash__V1__Response>) throws {
        if let error = try StashError(wireStatus: message.pointee.status) {
            self.init(id: message.pointee.id, result: .failure(error))
        } else {
            self.init(id: message.pointee.id, result: .success(try ResponseResult(wire: message)))
        }
    }
}
