import CStashProto
import NIOCore
import StashCore

extension WireCodec {
    /// Writes one frame: the u32 big-endian payload length, then the Request.
    /// `Operation.unknown` is sent with no op set; with id 0 that is an empty payload, which
    /// receivers refuse as a frame of length 0.
    /// A string holding a NUL goes out cut at the NUL, as protobuf-c packs strings; a client
    /// sends with `encodeRefusingNUL`, which refuses one instead.
    package static func encode(_ request: Request, into buffer: inout ByteBuffer) {
        let arena = PackArena()
        var message = wire(request, in: arena)
        write(&message, into: &buffer)
        // The message points into the arena until the pack above has returned.
        withExtendedLifetime(arena) {}
    }

    /// As `encode`, but a request holding a string with a NUL is refused before anything is
    /// written, naming the field: protobuf-c would send the string cut at the NUL, and
    /// `cancel("a\0b")` would cancel `a`. A string cannot carry a NUL in this protocol.
    package static func encodeRefusingNUL(_ request: Request, into buffer: inout ByteBuffer) throws {
        let arena = PackArena(findingNUL: true)
        var message = wire(request, in: arena)
        let cut = arena.stringsWithNUL
        if !cut.isEmpty {
            let field = withUnsafePointer(to: &message) {
                StringFieldCheck.firstField(holding: Set(cut.keys), in: UnsafeRawPointer($0), $0.pointee.base.descriptor)
            }
            var string = field.flatMap { cut[$0.pointer] } ?? cut.values.first ?? ""
            let reason = string.withUTF8 { StringFieldCheck.problem(in: UnsafeRawBufferPointer($0)) } ?? "holds a NUL"
            throw StashError.invalidArgument("\(field?.path ?? "a string of the request"): \(reason); \(StringFieldCheck.rule)")
        }
        write(&message, into: &buffer)
        withExtendedLifetime(arena) {}
    }

    private static func wire(_ request: Request, in arena: PackArena) -> Stash__V1__Request {
        var message = Stash__V1__Request()
        stash__v1__request__init(&message)
        message.id = request.id
        request.op.setWire(on: &message, in: arena)
        return message
    }

    private static func write(_ message: inout Stash__V1__Request, into buffer: inout ByteBuffer) {
        writeFrame(into: &buffer, packedSize: stash__v1__request__get_packed_size(&message)) {
            stash__v1__request__pack(&message, $0)
        }
    }

    /// Decodes a Request payload (the frame without its length prefix). An op this version
    /// does not know is `Operation.unknown`; a Request holding a value this version cannot
    /// read (an unknown enum number, a string that is not UTF-8 or holds a NUL) is
    /// `Operation.invalid` with the error naming the field and the value, so it can be
    /// answered under its own id.
    /// Bytes that are not a Request at all throw `StashError` with code `.invalidArgument`.
    package static func decodeRequest(_ payload: ByteBuffer) throws -> Request {
        try decode(
            payload, message: "stash.v1.Request",
            unpack: { stash__v1__request__unpack(nil, $0, $1) },
            free: { stash__v1__request__free_unpacked($0, nil) },
            convert: { message in
                do {
                    try payload.withUnsafeReadableBytes { try StringFieldCheck.check($0, of: message) }
                    return Request(id: message.pointee.id, op: try Operation(wire: message))
                } catch let error as StashError {
                    return Request(id: message.pointee.id, op: .invalid(error))
                }
            })
    }
}
