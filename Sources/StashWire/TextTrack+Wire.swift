import CStashProto
import StashCore

extension TextTrack {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__TextTrack> {
        var message = Stash__V1__TextTrack()
        stash__v1__text_track__init(&message)
        message.uri = arena.cString(uri)
        message.lang = arena.cString(language)
        message.title = arena.cString(title)
        message.type = arena.cString(type)
        message.path = arena.cString(path)
        return arena.store(message)
    }

    /// Read as sent: the daemon checks a request's tracks (`TextTrackRules`) and names the
    /// entry it refuses.
    init(wire message: UnsafeMutablePointer<Stash__V1__TextTrack>?) throws {
        let m = try WireValue.message(message, field: "TextTrack").pointee
        self.init(
            uri: try WireValue.string(m.uri, field: "TextTrack.uri"),
            language: try WireValue.string(m.lang, field: "TextTrack.lang"),
            title: try WireValue.string(m.title, field: "TextTrack.title"),
            type: try WireValue.string(m.type, field: "TextTrack.type"),
            path: try WireValue.string(m.path, field: "TextTrack.path"))
    }
}
