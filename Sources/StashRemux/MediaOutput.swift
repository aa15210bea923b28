import CAVFormat
import StashCore

/// A muxer writing one MP4 or Matroska file to a descriptor, through `MediaIO`.
final class MediaOutput {
    /// Owned: freed on deinit (its custom `io` is not closed by libav).
    let format: UnsafeMutablePointer<AVFormatContext>
    let io: MediaIO
    let container: ExportFormat

    init(descriptor: Int32, path: String, container: ExportFormat) throws {
        self.container = container
        io = try MediaIO(writingTo: descriptor, path: path)
        var context: UnsafeMutablePointer<AVFormatContext>?
        try RemuxError.check(
            avformat_alloc_output_context2(&context, nil, container.muxerName, nil), "avformat_alloc_output_context2(\(container.muxerName))")
        guard let context else {
            throw RemuxError(call: "avformat_alloc_output_context2", code: stash_averror(ENOMEM), message: "no memory for \(path)")
        }
        format = context
        format.pointee.pb = io.context
        format.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
    }

    deinit {
        avformat_free_context(format)
    }

    /// Whether the container has a way to store `codec` (libav's answer; an unsure answer is
    /// left to the header to settle).
    func canHold(_ codec: AVCodecID) -> Bool {
        avformat_query_codec(format.pointee.oformat, codec, FF_COMPLIANCE_NORMAL) != 0
    }

    func addStream() throws -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(format, nil) else {
            throw RemuxError(call: "avformat_new_stream", code: stash_averror(ENOMEM), message: "no memory for a stream of \(io.path)")
        }
        return stream
    }

    func stream(_ index: Int32) -> UnsafeMutablePointer<AVStream> {
        format.pointee.streams[Int(index)]!
    }

    /// Writes the header; the streams' time bases are the muxer's own from here on.
    func begin() throws {
        try RemuxError.check(avformat_write_header(format, nil), "avformat_write_header(\(io.path))", io: [io])
    }

    /// Hands `packet` to the muxer, which takes its contents (the packet is blank after).
    func write(_ packet: UnsafeMutablePointer<AVPacket>) throws {
        try RemuxError.check(av_interleaved_write_frame(format, packet), "av_interleaved_write_frame(\(io.path))", io: [io])
    }

    /// Writes what the muxer holds and its trailer (MP4's index, Matroska's cues), and
    /// flushes the buffer to the descriptor.
    func finish() throws {
        try RemuxError.check(av_write_trailer(format), "av_write_trailer(\(io.path))", io: [io])
        avio_flush(io.context)
        try RemuxError.check(io.context.pointee.error, "avio_flush(\(io.path))", io: [io])
    }
}

extension ExportFormat {
    /// libavformat's name of the muxer.
    var muxerName: String {
        switch self {
        case .mp4: return "mp4"
        case .mkv: return "matroska"
        }
    }
}
