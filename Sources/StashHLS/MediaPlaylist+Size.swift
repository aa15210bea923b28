extension MediaPlaylist {
    /// The exact size when every segment and init section is a byte range; nil otherwise.
    /// Each distinct init section counts once, as it is fetched once.
    var exactBytes: Int64? {
        guard !segments.isEmpty else { return nil }
        var total: Int64 = 0
        var sections: [InitSection] = []
        for segment in segments {
            guard let range = segment.byteRange else { return nil }
            total = ByteCount.add(total, ByteCount.bytes(range))
            if let map = segment.map, !sections.contains(where: { $0.isSameResource(as: map) }) {
                guard let mapRange = map.byteRange else { return nil }
                sections.append(map)
                total = ByteCount.add(total, ByteCount.bytes(mapRange))
            }
        }
        return total
    }

    /// Bits per second of the largest segment and of the whole playlist; call only when every
    /// segment has a byte range.
    var bitRates: (peak: UInt64, average: UInt64) {
        func rate(_ bytes: Double, _ seconds: Double) -> UInt64 {
            guard seconds > 0 else { return 0 }
            let bits = (bytes * 8 / seconds).rounded(.up)
            return bits >= 1.8e19 ? .max : UInt64(bits)
        }
        var peak: UInt64 = 0
        var bytes = 0.0
        for segment in segments {
            let length = Double(segment.byteRange?.length ?? 0)
            bytes += length
            peak = max(peak, rate(length, segment.duration))
        }
        return (peak, rate(bytes, totalDuration))
    }
}
