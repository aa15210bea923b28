import CAVFormat

/// One media input's packets on their way into the file: the streams taken from it, and the
/// next packet of one of them, held until it is the earliest of all inputs.
final class PacketLane {
    struct Output {
        /// The stream's index in the file.
        var index: Int32
        /// The input stream's time base.
        var base: AVRational
    }

    let input: MediaInput
    /// By input stream index.
    var outputs: [Int32: Output] = [:]
    let packet: UnsafeMutablePointer<AVPacket>
    private(set) var holding = false
    private(set) var ended = false
    /// The last held packet's time, for one without any.
    private var lastTime: Int64 = 0
    /// The decoding time the next packet of each stream has when it says none: the last
    /// one's plus its duration (MPEG-TS gives a time to the first AAC frame of a PES only).
    private var nextStamp: [Int32: Int64] = [:]

    init(input: MediaInput) throws {
        self.input = input
        guard let packet = av_packet_alloc() else {
            throw RemuxError(call: "av_packet_alloc", code: stash_averror(ENOMEM), message: "no memory for \(input.name)")
        }
        self.packet = packet
    }

    deinit {
        var owned: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&owned)
    }

    /// Reads until a packet of a stream taken is held, or the input ends.
    func fill() throws {
        while !holding && !ended {
            if try input.read(into: packet) {
                if outputs[packet.pointee.stream_index] != nil {
                    holding = true
                    fillStamps()
                } else {
                    av_packet_unref(packet)
                }
            } else {
                ended = true
            }
        }
    }

    private func fillStamps() {
        let nothing = stash_av_nopts_value()
        let stream = packet.pointee.stream_index
        if packet.pointee.dts == nothing { packet.pointee.dts = nextStamp[stream] ?? packet.pointee.pts }
        if packet.pointee.pts == nothing { packet.pointee.pts = packet.pointee.dts }
        if packet.pointee.dts != nothing && packet.pointee.duration > 0 {
            nextStamp[stream] = packet.pointee.dts &+ packet.pointee.duration
        }
    }

    /// The held packet's decoding time (its presentation time when it has no other) in
    /// microseconds on the inputs' clock.
    func time() -> Int64 {
        guard let output = outputs[packet.pointee.stream_index] else { return lastTime }
        let nothing = stash_av_nopts_value()
        let stamp = packet.pointee.dts != nothing ? packet.pointee.dts : packet.pointee.pts
        if stamp != nothing { lastTime = av_rescale_q(stamp, output.base, stash_av_time_base_q()) }
        return lastTime
    }

    /// The held packet, moved `origin` microseconds earlier and put in its output stream's
    /// time base, for the muxer; nothing is held after.
    func take(origin: Int64, into output: MediaOutput) throws {
        guard holding, let target = outputs[packet.pointee.stream_index] else { return }
        holding = false
        let nothing = stash_av_nopts_value()
        let shift = av_rescale_q(origin, stash_av_time_base_q(), target.base)
        if packet.pointee.pts != nothing { packet.pointee.pts &-= shift }
        if packet.pointee.dts != nothing { packet.pointee.dts &-= shift }
        av_packet_rescale_ts(packet, target.base, output.stream(target.index).pointee.time_base)
        packet.pointee.stream_index = target.index
        packet.pointee.pos = -1
        try output.write(packet)
    }
}
