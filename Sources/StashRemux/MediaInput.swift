import CAVFormat

/// A demuxer over a `ChunkSource`: the container is found by probing the first bytes (MPEG-TS,
/// fragmented MP4, packed audio) unless a format is named (the subtitle demuxers).
final class MediaInput {
    /// Owned: closed on deinit (which leaves `io` alone, as it is a custom one).
    let format: UnsafeMutablePointer<AVFormatContext>
    let io: MediaIO
    /// For messages: `video`, `audio/es`.
    let name: String

    /// Opens the input; with `findStreamInfo`, reads ahead until every stream's codec
    /// parameters are known (what a stream copy needs: an H.264 stream's SPS, AAC's rate).
    init(source: ChunkSource, name: String, formatName: String? = nil, findStreamInfo: Bool = true) throws {
        self.name = name
        io = try MediaIO(reading: source, name: name)
        guard let context = avformat_alloc_context() else {
            throw RemuxError(call: "avformat_alloc_context", code: stash_averror(ENOMEM), message: "no memory for \(name)")
        }
        context.pointee.pb = io.context
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        let forced = formatName.flatMap { av_find_input_format($0) }
        var opened: UnsafeMutablePointer<AVFormatContext>? = context
        // On a failure avformat_open_input frees the context it was given.
        try RemuxError.check(avformat_open_input(&opened, nil, forced, nil), "avformat_open_input(\(name))", io: [io])
        guard let opened else {
            throw RemuxError(call: "avformat_open_input(\(name))", code: stash_averror(EINVAL), message: "no context was returned")
        }
        format = opened
        if findStreamInfo {
            try RemuxError.check(avformat_find_stream_info(format, nil), "avformat_find_stream_info(\(name))", io: [io])
        }
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFormatContext>? = format
        avformat_close_input(&owned)
    }

    var streams: [UnsafeMutablePointer<AVStream>] {
        (0..<Int(format.pointee.nb_streams)).compactMap { format.pointee.streams[$0] }
    }

    /// The next packet into `packet` (which must be blank); false at the end of the input.
    func read(into packet: UnsafeMutablePointer<AVPacket>) throws -> Bool {
        let code = av_read_frame(format, packet)
        // A demuxer may take a failed read for the end; the source's failure says otherwise.
        if let failure = io.failure { throw failure }
        if code == stash_averror_eof() { return false }
        try RemuxError.check(code, "av_read_frame(\(name))", io: [io])
        return true
    }
}
