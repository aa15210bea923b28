#if DEBUG
import StashCore
import StashHLS

extension FuzzTarget {
    static func m3u8(_ bytes: UnsafeRawBufferPointer) {
        guard let playlist = try? Playlist.parse(Array(bytes), baseURL: "https://cdn.example.com/show/master.m3u8") else {
            return
        }
        switch playlist {
        case .master(let master):
            _ = ManifestInfo(master: master, summaries: [:])
        case .media(let media):
            let uri = "https://cdn.example.com/show/media.m3u8"
            _ = ManifestInfo(master: nil, summaries: [uri: MediaSummary(media)])
            // Time ranges over whatever timeline the input has: inside it, on its edges, past
            // it, and values no request may carry (the planner must refuse them, not trap).
            let duration = media.totalDuration
            let ranges: [(Double?, Double?)] = [
                (duration / 3, duration / 2), (0, duration), (nil, duration * 2), (duration, nil), (-1, nil),
                (.nan, .infinity), (nil, 1e308), (duration / 2, duration / 2),
            ]
            for (start, end) in ranges {
                _ = try? ManifestInfo(master: nil, summaries: [uri: MediaSummary(media, start: start, end: end)], start: start, end: end)
                _ = try? PackagePlan.make(masterURI: uri, selection: nil, media: [uri: media], start: start, end: end)
            }
        }
    }
}
#endif
