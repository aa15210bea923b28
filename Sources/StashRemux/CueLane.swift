import CAVFormat
import StashCore

/// One subtitle track's cues on their way into the file, on the file's clock.
final class CueLane {
    let cues: [SubtitleCue]
    private(set) var next = 0
    /// The track's index in the file.
    let index: Int32
    /// For MP4: the cues become mov_text samples. Nil for Matroska, which stores them as they are.
    let encoder: MovTextEncoder?
    let name: String

    /// `cues` moved `shift` microseconds earlier; those that end before the file's zero go,
    /// and one that starts before it starts at zero.
    init(cues: [SubtitleCue], shift: Int64, index: Int32, encoder: MovTextEncoder?, name: String) {
        self.cues = cues.compactMap { cue in
            var moved = cue.shifted(by: 0 &- shift)
            guard moved.end > 0 else { return nil }
            moved.start = max(0, moved.start)
            return moved
        }
        self.index = index
        self.encoder = encoder
        self.name = name
    }

    /// The start of the next cue; nil when every one is written.
    var time: Int64? { next < cues.count ? cues[next].start : nil }

    /// Writes the next cue.
    func take(into output: MediaOutput) throws {
        guard next < cues.count else { return }
        let cue = cues[next]
        next += 1
        let data: [UInt8]
        if let encoder {
            guard let sample = try encoder.encode(cue) else { return }
            data = sample
        } else {
            data = cue.text
        }
        var owned = av_packet_alloc()
        defer { av_packet_free(&owned) }
        guard let packet = owned else {
            throw RemuxError(call: "av_packet_alloc", code: stash_averror(ENOMEM), message: "no memory for \(name)")
        }
        try RemuxError.check(av_new_packet(packet, Int32(data.count)), "av_new_packet(\(name))")
        Self.copy(data, to: packet.pointee.data)
        if encoder == nil {
            try attach(cue.identifier, AV_PKT_DATA_WEBVTT_IDENTIFIER, to: packet)
            try attach(cue.settings, AV_PKT_DATA_WEBVTT_SETTINGS, to: packet)
        }
        let base = output.stream(index).pointee.time_base
        let microseconds = stash_av_time_base_q()
        packet.pointee.pts = av_rescale_q(cue.start, microseconds, base)
        packet.pointee.dts = packet.pointee.pts
        packet.pointee.duration = av_rescale_q(max(0, cue.end &- cue.start), microseconds, base)
        packet.pointee.stream_index = index
        try output.write(packet)
    }

    private func attach(_ bytes: [UInt8], _ type: AVPacketSideDataType, to packet: UnsafeMutablePointer<AVPacket>) throws {
        guard !bytes.isEmpty else { return }
        guard let data = av_packet_new_side_data(packet, type, bytes.count) else {
            throw RemuxError(call: "av_packet_new_side_data", code: stash_averror(ENOMEM), message: "no memory for \(name)")
        }
        Self.copy(bytes, to: data)
    }

    private static func copy(_ bytes: [UInt8], to target: UnsafeMutablePointer<UInt8>?) {
        guard let target else { return }
        bytes.withUnsafeBufferPointer { source in
            guard let base = source.baseAddress else { return }
            target.update(from: base, count: source.count)
        }
    }
}
