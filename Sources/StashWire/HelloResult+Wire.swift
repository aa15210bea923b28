import CStashProto
import StashCore

extension HelloResult {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__HelloResult> {
        var message = Stash__V1__HelloResult()
        stash__v1__hello_result__init(&message)
        message.protocol_version = UInt32(clamping: protocolVersion)
        message.daemon_version = arena.cString(daemonVersion)
        message.n_features = features.count
        message.features = arena.array(features) { Optional(arena.cString($0)) }
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__HelloResult>) throws {
        let m = message.pointee
        self.init(
            protocolVersion: Int(m.protocol_version),
            daemonVersion: try WireValue.string(m.daemon_version, field: "HelloResult.daemon_version"),
            features: try WireValue.elements(m.features, count: m.n_features) {
                try WireValue.string($0, field: "HelloResult.features")
            })
    }
}
