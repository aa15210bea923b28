#if DEBUG
import NIOCore
@testable import StashWire

extension FuzzTarget {
    static func frames(_ bytes: UnsafeRawBufferPointer) {
        var buffer = ByteBuffer(bytes: bytes)
        // The daemon's own limit: the fuzzer's inputs are far below it, and a length prefix
        // above it must be refused before anything is buffered.
        let decoder = FrameDecoder()
        while let payload = try? decoder.nextPayload(from: &buffer) {
            _ = try? WireCodec.decodeRequest(payload)
            _ = try? WireCodec.decodeServerMessage(payload)
        }
        _ = try? decoder.checkNothingLeft(in: buffer)
    }
}
#endif
