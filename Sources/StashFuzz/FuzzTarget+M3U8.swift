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
            let summary = MediaSummary(media)
            _ = ManifestInfo(master: nil, summaries: ["https://cdn.example.com/show/media.m3u8": summary])
        }
    }
}
#endif
