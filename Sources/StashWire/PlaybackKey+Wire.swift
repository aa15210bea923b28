import CStashProto
import StashCore

extension PlaybackKey {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__PlaybackKeyResult> {
        var message = Stash__V1__PlaybackKeyResult()
        stash__v1__playback_key_result__init(&message)
        message.key = arena.bytes(key)
        message.key_id = arena.cString(keyID)
        message.playback_seconds_left = playbackSecondsLeft ?? -1
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__PlaybackKeyResult>) throws {
        let m = message.pointee
        self.init(
            key: m.key.len == 0 ? [] : Array(UnsafeBufferPointer(start: m.key.data, count: m.key.len)),
            keyID: try WireValue.string(m.key_id, field: "PlaybackKeyResult.key_id"),
            playbackSecondsLeft: try WireValue.optional(m.playback_seconds_left, field: "PlaybackKeyResult.playback_seconds_left"))
    }
}
