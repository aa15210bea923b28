/// The encrypted samples of one CENC media segment, found from each `traf`'s `tfhd`, `trun`
/// and `senc` (ISO/IEC 14496-12 section 8.8, ISO/IEC 23001-7 section 7.2), and the segment's
/// bytes with its `senc`, `saiz`, `saio` and `pssh` boxes made `free` boxes of the same size,
/// so that once the samples are decrypted in place nothing says they are encrypted and no
/// offset moved. Every size, count and offset is checked against its box and the segment.
package struct CENCFragment: Sendable {
    package var bytes: [UInt8]
    package var samples: [CENCSample]

    /// - Parameter tracks: the protected tracks of the segment's initialization segment;
    ///   a traf of another track is left as it is.
    /// - Throws: `CENCError`, naming the box, the field and the value.
    package init(_ segment: [UInt8], tracks: [ProtectedTrack]) throws {
        bytes = segment
        samples = []
        for box in try MP4Box.children(of: segment, in: 0..<segment.count, container: "the segment") {
            if box.type == "pssh" { box.rename(&bytes, to: "free") }
            guard box.type == "moof" else { continue }
            for traf in try box.children(of: segment) where traf.type == "traf" {
                try read(traf, moof: box, tracks: tracks)
            }
        }
    }

    private mutating func read(_ traf: MP4Box, moof: MP4Box, tracks: [ProtectedTrack]) throws {
        let boxes = try traf.children(of: bytes)
        guard let tfhd = boxes.first(where: { $0.type == "tfhd" }) else { throw CENCError(.malformed, "a traf at offset \(traf.start) has no tfhd") }
        var header = tfhd.reader(bytes)
        let flags = (header.u32() ?? 0) & 0xFF_FFFF
        guard let trackID = header.u32() else { throw CENCError(.malformed, "the tfhd at offset \(tfhd.start) has no track_ID") }
        guard let track = tracks.first(where: { $0.trackID == trackID }) else {
            // Samples said to be encrypted with no key known: copying them as clear would lie.
            if boxes.contains(where: { $0.type == "senc" }) {
                throw CENCError(.malformed, "the traf of track \(trackID) has a senc, and its initialization segment protects no track \(trackID)")
            }
            return
        }
        var base = moof.start
        if flags & 0x1 != 0 {
            guard let offset = header.u64(), offset <= UInt64(bytes.count) else {
                throw CENCError(.malformed, "the tfhd of track \(trackID) has a base_data_offset outside the segment's \(bytes.count) bytes")
            }
            base = Int(offset)
        }
        if flags & 0x2 != 0 { _ = header.u32() }
        if flags & 0x8 != 0 { _ = header.u32() }
        let defaultSize = flags & 0x10 != 0 ? header.u32() : nil
        if boxes.contains(where: { $0.type == "sgpd" || $0.type == "sbgp" }) {
            throw CENCError(.unsupported, "the traf of track \(trackID) has sample groups (sbgp/sgpd): keys rotated by 'seig' groups are not decrypted")
        }
        let sizes = try sampleRanges(boxes.filter { $0.type == "trun" }, base: base, defaultSize: defaultSize, trackID: trackID)
        guard let senc = boxes.first(where: { $0.type == "senc" }) else {
            guard sizes.isEmpty else {
                throw CENCError(.unsupported, "the traf of track \(trackID) has \(sizes.count) samples and no senc: sample auxiliary information elsewhere (saio into mdat) is not read")
            }
            return
        }
        try readSenc(senc, samples: sizes, track: track)
        for box in boxes where ["senc", "saiz", "saio"].contains(box.type) { box.rename(&bytes, to: "free") }
    }

    /// Each sample's byte range, from the truns: a trun's data_offset counts from `base`, a
    /// trun without one goes on where the previous one ended.
    private func sampleRanges(_ truns: [MP4Box], base: Int, defaultSize: UInt32?, trackID: UInt32) throws -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var next = base
        for trun in truns {
            var reader = trun.reader(bytes)
            let flags = (reader.u32() ?? 0) & 0xFF_FFFF
            guard let count = reader.u32() else { throw CENCError(.malformed, "the trun of track \(trackID) has no sample_count") }
            if flags & 0x1 != 0 {
                guard let raw = reader.u32() else { throw CENCError(.malformed, "the trun of track \(trackID) has no data_offset") }
                let (offset, overflow) = base.addingReportingOverflow(Int(Int32(bitPattern: raw)))
                guard !overflow, offset >= 0, offset <= bytes.count else {
                    throw CENCError(.malformed, "the trun of track \(trackID) has data_offset \(Int32(bitPattern: raw)), outside the segment's \(bytes.count) bytes")
                }
                next = offset
            }
            if flags & 0x4 != 0 { _ = reader.u32() }
            let fields = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt32($0) != 0 }
            let left = reader.bytes.count - reader.position
            guard UInt64(count) * UInt64(fields.count * 4) <= UInt64(left), fields.contains(0x200) || UInt64(count) * UInt64(max(defaultSize ?? 1, 1)) <= UInt64(bytes.count) else {
                throw CENCError(.malformed, "the trun of track \(trackID) has sample_count \(count), more than its \(left) bytes of sample fields hold")
            }
            for _ in 0..<count {
                var size = defaultSize
                for field in fields {
                    let value = reader.u32()
                    if field == 0x200 { size = value }
                }
                guard let size else { throw CENCError(.malformed, "a sample of track \(trackID) has no size in its trun or tfhd (trex defaults are not read)") }
                guard UInt64(size) <= UInt64(bytes.count - next) else {
                    throw CENCError(.malformed, "a sample of track \(trackID) at offset \(next) has size \(size), past the segment's \(bytes.count) bytes")
                }
                ranges.append(next..<next + Int(size))
                next += Int(size)
            }
        }
        return ranges
    }

    private mutating func readSenc(_ senc: MP4Box, samples ranges: [Range<Int>], track: ProtectedTrack) throws {
        var reader = senc.reader(bytes)
        let flags = (reader.u32() ?? 0) & 0xFF_FFFF
        var ivSize = track.ivSize
        var keyID = track.keyID
        if flags & 0x1 != 0 {
            // An override of the track's defaults: AlgorithmID (3 bytes), IV size, KID.
            guard reader.take(3) != nil, let size = reader.u8(), let kid = reader.take(16), size == 8 || size == 16 else {
                throw CENCError(.malformed, "the senc of track \(track.trackID) overrides its parameters with no IV size of 8 or 16 and KID")
            }
            ivSize = Int(size)
            keyID = kid
        }
        guard let count = reader.u32(), count == ranges.count else {
            throw CENCError(.malformed, "the senc of track \(track.trackID) lists a sample_count other than the \(ranges.count) samples of its truns")
        }
        for range in ranges {
            guard let iv = reader.take(ivSize) else {
                throw CENCError(.malformed, "the senc of track \(track.trackID) ends before the IV of sample \(samples.count)")
            }
            var protected: [Range<Int>] = []
            if flags & 0x2 != 0 {
                guard let entries = reader.u16() else { throw CENCError(.malformed, "the senc of track \(track.trackID) ends before a subsample_count") }
                var position = range.lowerBound
                for _ in 0..<entries {
                    guard let clear = reader.u16(), let secret = reader.u32() else {
                        throw CENCError(.malformed, "the senc of track \(track.trackID) ends inside the subsamples of a sample")
                    }
                    guard UInt64(clear) + UInt64(secret) <= UInt64(range.upperBound - position) else {
                        throw CENCError(.malformed, "a subsample of \(clear) clear and \(secret) protected bytes passes the end of its \(range.count)-byte sample (track \(track.trackID))")
                    }
                    position += Int(clear)
                    if secret > 0 { protected.append(position..<position + Int(secret)) }
                    position += Int(secret)
                }
                guard position == range.upperBound else {
                    throw CENCError(.malformed, "the subsamples of a \(range.count)-byte sample of track \(track.trackID) cover \(position - range.lowerBound) bytes")
                }
            } else if !range.isEmpty {
                protected = [range]
            }
            samples.append(CENCSample(protected: protected, counter: iv + [UInt8](repeating: 0, count: 16 - ivSize), keyID: keyID))
        }
    }
}
