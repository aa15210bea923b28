import NIOCore
import StashCore

/// Turns messages into frames and frames into messages. The protobuf-c structs stay inside
/// this module; callers see only the Swift values.
///
/// A frame is a u32 big-endian length, then that many bytes of one protobuf message. The
/// `encode` functions write the whole frame (prefix included) into the buffer; the `decode`
/// functions take the payload only (FrameDecoder has already removed the prefix and checked it).
public enum WireCodec {
    /// Frames larger than this are refused before anything is allocated for them.
    public static let defaultMaxFrameLength = 4 * 1024 * 1024
}
