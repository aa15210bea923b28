import CStashProto
import StashCore

extension HLSOptions {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__HlsOptions> {
        var message = Stash__V1__HlsOptions()
        stash__v1__hls_options__init(&message)
        message.quality = arena.cString(quality.rawValue)
        message.max_height = UInt32(clamping: maxHeight ?? 0)
        message.bandwidth = bandwidth ?? 0
        message.n_subtitles = subtitles.count
        message.subtitles = arena.array(subtitles) { Optional(arena.cString($0)) }
        message.n_audio = audio.count
        message.audio = arena.array(audio) { Optional(arena.cString($0)) }
        message.segment_concurrency = UInt32(clamping: segmentConcurrency)
        if let start {
            message.start_given_case = STASH__V1__HLS_OPTIONS__START_GIVEN_START
            message.start = start
        }
        if let end {
            message.end_given_case = STASH__V1__HLS_OPTIONS__END_GIVEN_END
            message.end = end
        }
        return arena.store(message)
    }

    /// Zero values mean "not given" (start and end: an unset oneof); an unknown quality is
    /// INVALID_ARGUMENT naming it.
    init(wire message: UnsafePointer<Stash__V1__HlsOptions>) throws {
        let m = message.pointee
        let qualityName = try WireValue.string(m.quality, field: "HlsOptions.quality")
        guard let quality = qualityName.isEmpty ? .auto : Quality(rawValue: qualityName.lowercased()) else {
            throw StashError.invalidArgument("hls.quality '\(qualityName.prefix(40))' is not one of low, medium, high, auto")
        }
        self.init(
            quality: quality,
            maxHeight: m.max_height == 0 ? nil : Int(m.max_height),
            bandwidth: m.bandwidth == 0 ? nil : m.bandwidth,
            subtitles: try WireValue.elements(m.subtitles, count: m.n_subtitles) { try WireValue.string($0, field: "HlsOptions.subtitles") },
            audio: try WireValue.elements(m.audio, count: m.n_audio) { try WireValue.string($0, field: "HlsOptions.audio") },
            segmentConcurrency: m.segment_concurrency == 0 ? HLSOptions.defaultSegmentConcurrency : Int(m.segment_concurrency),
            // Any double is read as sent: HLSRules says which are times, naming the field.
            start: m.start_given_case == STASH__V1__HLS_OPTIONS__START_GIVEN_START ? m.start : nil,
            end: m.end_given_case == STASH__V1__HLS_OPTIONS__END_GIVEN_END ? m.end : nil)
    }
}
