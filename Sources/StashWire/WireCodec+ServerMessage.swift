import CStashProto
import Foundation
import NIOCore
import StashCore

extension WireCodec {
    /// Writes one frame: the u32 big-endian payload length, then the ServerMessage. `now` is
    /// the time a response's records are sent at (a licence's time left is worked out from it):
    /// the daemon passes its injected clock's. An event's record is told as at the event.
    package static func encode(_ message: ServerMessage, at now: Date, into buffer: inout ByteBuffer) {
        let arena = PackArena()
        var wire = Stash__V1__ServerMessage()
        stash__v1__server_message__init(&wire)
        switch message {
        case .response(let response):
            wire.msg_case = STASH__V1__SERVER_MESSAGE__MSG_RESPONSE
            wire.response = response.wire(in: arena, now: now)
        case .event(let event):
            wire.msg_case = STASH__V1__SERVER_MESSAGE__MSG_EVENT
            wire.event = event.wire(in: arena)
        case .laterEvent(let seq):
            var event = Stash__V1__Event()
            stash__v1__event__init(&event)
            event.seq = seq
            wire.msg_case = STASH__V1__SERVER_MESSAGE__MSG_EVENT
            wire.event = arena.store(event)
        }
        writeFrame(into: &buffer, packedSize: stash__v1__server_message__get_packed_size(&wire)) {
            stash__v1__server_message__pack(&wire, $0)
        }
        // The message points into the arena until the pack above has returned.
        withExtendedLifetime(arena) {}
    }

    /// Decodes a ServerMessage payload (the frame without its length prefix). A Response with
    /// a non-OK status is `.failure`; an Event of a kind this version does not know is
    /// `.laterEvent`; a message with neither a response nor an event set, bytes that are not a
    /// ServerMessage, an enum value this version does not know, a string that is not UTF-8 or
    /// holds a NUL, or a record whose numbers cannot be (PROTOCOL.md section 8, "Values a client
    /// refuses") throw `StashError` with code `.invalidArgument`.
    package static func decodeServerMessage(_ payload: ByteBuffer) throws -> ServerMessage {
        try decode(
            payload, message: "stash.v1.ServerMessage",
            unpack: { stash__v1__server_message__unpack(nil, $0, $1) },
            free: { stash__v1__server_message__free_unpacked($0, nil) },
            convert: { message in
                try payload.withUnsafeReadableBytes { try StringFieldCheck.check($0, of: message) }
                switch message.pointee.msg_case {
                case STASH__V1__SERVER_MESSAGE__MSG_RESPONSE:
                    return .response(try Response(wire: try WireValue.message(message.pointee.response, field: "ServerMessage.response")))
                case STASH__V1__SERVER_MESSAGE__MSG_EVENT:
                    let event = try WireValue.message(message.pointee.event, field: "ServerMessage.event")
                    // protobuf-c reads a kind it has no field for as no kind at all.
                    if event.pointee.kind_case == STASH__V1__EVENT__KIND__NOT_SET {
                        return .laterEvent(seq: event.pointee.seq)
                    }
                    return .event(try DownloadEvent(wire: event))
                default:
                    throw StashError.invalidArgument("ServerMessage.msg: neither response nor event is set")
                }
            })
    }
}
