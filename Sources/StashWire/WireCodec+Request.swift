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
    /// does not know is `Operation.unknown`; a Request holding a value this version cannot
    /// read (an unknown enum number, a string that is not UTF-8) is `Operation.invalid` with
    /// the error naming the field and the value, so it can be answered under its own id.
    /// Bytes that are not a Request at all throw `StashError` with code `.invalidArgument`.
    public static func decodeRequest(_ payload: ByteBuffer) throws -> Request {
        try decode(
            payload, message: "stash.v1.Request",
            unpack: { stash__v1__request__unpack(nil, $0, $1) },
            free: { stash__v1__request__free_unpacked($0, nil) },
            convert: { message in
                do {
                    return Request(id: message.pointee.id, op: try Operation(wire: message))
                } catch let error as StashError {
                    return Request(id: message.pointee.id, op: .invalid(error))
                }
            })
    }
}
