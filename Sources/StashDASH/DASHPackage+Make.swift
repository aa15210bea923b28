import StashCore

extension DASHPackage {
    /// Lays out the package of `tracks` (from `MPD.select`), with the segments of each
    /// SegmentBase representation read from its `sidx` bytes in `indexes` (by `indexKey`).
    /// With `start` or `end` (seconds of the presentation), only the segments that overlap
    /// `[start, end)` are kept; an end past the presentation is clamped to it.
    package static func make(mpd: MPD, tracks: [DASHTrack], indexes: [String: [UInt8]] = [:], start: Double? = nil,
                             end: Double? = nil) throws -> DASHPackage {
        var window: (start: Double, end: Double)?
        if start != nil || end != nil {
            let first = start ?? 0
            let last = min(end ?? mpd.duration, mpd.duration)
            guard first.isFinite, first >= 0, first < mpd.duration else {
                throw DASHError(.invalidDuration, "hls.start \(first) is at or past the end of the presentation, which lasts \(mpd.duration) s")
            }
            guard last > first else {
                throw DASHError(.invalidDuration, "hls.end \(last) must be after hls.start \(first) (the presentation lasts \(mpd.duration) s)")
            }
            window = (first, last)
        }
        var files: [File] = []
        var writer = LocalMPD(duration: window.map { $0.end - $0.start } ?? mpd.duration)
        var estimate: Int64 = 0
        var exact = true
        for track in tracks {
            let period = mpd.periods[track.period]
            var list = try segments(of: track.representation, indexes: indexes)
            if let window {
                list.media = list.media.filter { segment in
                    let begins = period.start + segment.start
                    return begins < window.end && begins + segment.duration > window.start
                }
                if list.media.isEmpty { continue }
            }
            let ext = { (url: String, fallback: String) in Self.fileExtension(url) ?? fallback }
            let container = track.representation.container
            var trackFiles: [File] = []
            var initPath: String?
            if let initialization = list.initialization {
                initPath = track.folder + "/init." + ext(initialization.url, "mp4")
                trackFiles.append(File(url: initialization.url, path: initPath ?? "", range: initialization.range, container: container))
            }
            let mediaExt = ext(list.media[0].url, "m4s")
            for (number, segment) in list.media.enumerated() {
                trackFiles.append(File(
                    url: segment.url, path: track.folder + "/" + Self.segmentName(number, mediaExt), range: segment.range, container: container))
            }
            let kept = list.media.reduce(0) { $0 + $1.duration }
            if trackFiles.allSatisfy({ $0.range != nil }) {
                estimate = estimate.addingSaturating(trackFiles.reduce(Int64(0)) { $0.addingSaturating(Int64(clamping: $1.range?.length ?? 0)) })
            } else {
                exact = false
                estimate = estimate.addingSaturating(Int64(clamping: UInt64(min(Double(track.representation.bandwidth) * kept / 8, 9e18))))
            }
            writer.add(track, period: period, initialization: initPath, media: list.media, mediaExtension: mediaExt)
            files += trackFiles
        }
        guard !files.isEmpty else { throw DASHError(.noSegments, "nothing of the chosen representations is in the time range") }
        let video = tracks.first { $0.kind == .video }?.representation ?? tracks.first?.representation
        return DASHPackage(files: files, manifest: writer.text(periods: mpd.periods), duration: window.map { $0.end - $0.start } ?? mpd.duration,
                           estimatedBytes: estimate, sizeIsExact: exact, quality: video?.summary ?? "",
                           hasSubtitles: tracks.contains { $0.kind == .text }, window: window)
    }

    static func segments(of representation: Representation, indexes: [String: [UInt8]]) throws -> SegmentList {
        switch representation.addressing {
        case .template(let template): return try template.segments()
        case .list(let list): return list
        case .base(let base):
            guard let request = representation.indexRequest, let bytes = indexes[indexKey(url: request.url, range: request.range)] else {
                throw DASHError(.noSegments, "representation \(representation.id) is one file without an index (SegmentBase@indexRange) that was read")
            }
            return try base.segments(index: bytes)
        }
    }

    static func segmentName(_ number: Int, _ ext: String) -> String {
        let digits = String(number)
        return "seg" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits + "." + ext
    }

    /// The extension of `url`'s path when it is 1 to 5 letters and digits (`m4s`, `vtt`), else nil.
    static func fileExtension(_ url: String) -> String? {
        let path = url.split(separator: "?", maxSplits: 1)[0].split(separator: "#", maxSplits: 1)[0]
        guard let name = path.split(separator: "/").last, let dot = name.lastIndex(of: ".") else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        guard (1...5).contains(ext.count), ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        return ext
    }
}
