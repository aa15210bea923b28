import CAVFormat

/// Turns WebVTT or SubRip cues into MP4's text format (3GPP timed text, `mov_text`), as
/// libavcodec's decoder of the one and encoder of the other do: the styling they share (bold,
/// italic, underline) is kept, the rest (positions, classes) dropped. The encoder also makes
/// the sample description (`extradata`) the MP4 track needs.
final class MovTextEncoder {
    private var decoder: UnsafeMutablePointer<AVCodecContext>?
    private var encoder: UnsafeMutablePointer<AVCodecContext>?
    private let name: String

    /// A cue's encoded sample is at most this long: its length is a 16-bit field.
    static let maxSample = 65_535 + 2

    init(from format: SubtitleFormat, name: String) throws {
        self.name = name
        guard let decoding = avcodec_find_decoder(format.codec), let encoding = avcodec_find_encoder(AV_CODEC_ID_MOV_TEXT) else {
            throw RemuxError(call: name, code: 0, message: "this libavcodec has no \(format.demuxerName) decoder or mov_text encoder")
        }
        decoder = avcodec_alloc_context3(decoding)
        encoder = avcodec_alloc_context3(encoding)
        guard let decoder, let encoder else {
            throw RemuxError(call: "avcodec_alloc_context3", code: stash_averror(ENOMEM), message: "no memory for \(name)")
        }
        decoder.pointee.pkt_timebase = AVRational(num: 1, den: 1000)
        decoder.pointee.time_base = AVRational(num: 1, den: 1000)
        try RemuxError.check(avcodec_open2(decoder, decoding, nil), "avcodec_open2(\(name) decoder)")
        encoder.pointee.time_base = AVRational(num: 1, den: 1000)
        // The encoder reads its default style from the header the decoder made (libav's
        // default ASS header); it frees what it is given.
        if let header = decoder.pointee.subtitle_header, decoder.pointee.subtitle_header_size > 0 {
            let size = Int(decoder.pointee.subtitle_header_size)
            guard let copy = av_mallocz(size + 1)?.assumingMemoryBound(to: UInt8.self) else {
                throw RemuxError(call: "av_mallocz", code: stash_averror(ENOMEM), message: "no memory for \(name)")
            }
            copy.update(from: header, count: size)
            encoder.pointee.subtitle_header = copy
            encoder.pointee.subtitle_header_size = Int32(size)
        }
        try RemuxError.check(avcodec_open2(encoder, encoding, nil), "avcodec_open2(\(name) mov_text encoder)")
    }

    deinit {
        avcodec_free_context(&decoder)
        avcodec_free_context(&encoder)
    }

    /// The sample description into the track's parameters.
    func describe(_ parameters: UnsafeMutablePointer<AVCodecParameters>) throws {
        try RemuxError.check(avcodec_parameters_from_context(parameters, encoder), "avcodec_parameters_from_context(\(name))")
    }

    /// The cue as one mov_text sample; nil when the decoder finds nothing to show in it.
    func encode(_ cue: SubtitleCue) throws -> [UInt8]? {
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let packet else {
            throw RemuxError(call: "av_packet_alloc", code: stash_averror(ENOMEM), message: "no memory for \(name)")
        }
        try RemuxError.check(av_new_packet(packet, Int32(cue.text.count)), "av_new_packet(\(name))")
        cue.text.withUnsafeBufferPointer { text in
            guard let base = text.baseAddress else { return }
            packet.pointee.data.update(from: base, count: text.count)
        }
        packet.pointee.pts = cue.start / 1000
        packet.pointee.duration = (cue.end - cue.start) / 1000
        var subtitle = AVSubtitle()
        var got: Int32 = 0
        try RemuxError.check(avcodec_decode_subtitle2(decoder, &subtitle, &got, packet), "avcodec_decode_subtitle2(\(name))")
        guard got != 0 else { return nil }
        defer { avsubtitle_free(&subtitle) }
        guard subtitle.num_rects > 0 else { return nil }
        var sample = [UInt8](repeating: 0, count: Self.maxSample)
        let size = try RemuxError.check(
            avcodec_encode_subtitle(encoder, &sample, Int32(sample.count), &subtitle), "avcodec_encode_subtitle(\(name), a cue at \(cue.start / 1000) ms)")
        return Array(sample.prefix(Int(size)))
    }
}
