import CStashProto
import NIOCore
import StashCore

extension WireCodec {
    /// Writes one frame: the u32 big-endian payload length, then the Request.
    /// `Operation.unknown` is sent with no op set; with id 0 that is an empty payload, which
    /// receivers refuse as a frame of length 0.
    public static func encode(_ request: Request, into buffer: inout ByteBuffer) {
        let arena = PackArena()
        var message = Stash__V1__Request()
        stash__v1__request__init(&message)
        message.id = request.id
        request.op.setWire(on: &message, in: arena)
        writeFrame(into: &buffer, packedSize: stash__v1__request__get_packed_size(&message)) {
            stash__v1__request__pack(&message, $0)
        }
        // The message points into the arena until the pack above has returned.
        withExtendedLifetime(arena) {}
    }

    /// Decodes a Request payload (the frame without its length prefix). An op this version
    /// does not know is `Operation.unknown`; bytes that are not a Request, or an enum value
    /// this version does not know, throw `StashError` with code `.invalidArgument`.
    public static func decodeRequest(_ payload: ByteBuffer) throws -> Request {
        try decode(
            payload, message: "stash.v1.Request",
            unpack: { stash__v1__request__unpack(nil, $0, $1) },
            free: { stash__v1__request__free_unpacked($0, nil) },
            convert: { Request(id: $0.pointee.id, op: try Operation(wire: $0)) })
    }
}
