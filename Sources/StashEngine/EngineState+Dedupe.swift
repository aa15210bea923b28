import StashCrypto
import Foundation
import StashCore

/// Dedupe: adding what an existing download already holds (the same URL, the same bundle file
/// list, the same HLS stream and choice) returns that download instead of fetching it twice,
/// unless the client says `force`.
extension EngineState {
    /// What makes two downloads the same content. A bundle's list is hashed (it may be
    /// thousands of files); an HLS stream's choice of renditions is compared on a match. A
    /// file's or a stream's key holds its URL as the record does, one string for both.
    enum ContentKey: Hashable {
        case file(String)
        case hls(String)
        case bundle(String)
    }

    static func contentKey(uri: String, files: [DownloadFile], isBundle: Bool, hls: HLSOptions?) -> ContentKey {
        guard isBundle else { return hls == nil ? .file(uri) : .hls(uri) }
        let hash = SHA256()
        for file in files {
            // NUL cannot occur in either, so no two lists give the same bytes.
            hash.update(Array(file.url.utf8) + [0] + Array(file.path.utf8) + [0])
        }
        return .bundle(hash.finalizeHex())
    }

    /// A download's text tracks are not its content: the same bundle with a track more is the same bundle.
    static func contentKey(_ download: Download) -> ContentKey {
        contentKey(uri: download.uri, files: download.contentFiles, isBundle: download.isBundle, hls: download.hls)
    }

    /// The download that already holds this content, if one does (not one being removed).
    func holder(ofContent key: ContentKey, hls: HLSOptions?, drm: DRMParams?) -> Download? {
        guard let id = contentIndex[key], let download = entries[id]?.download, download.state != .removing else { return nil }
        if download.hls != nil, download.hls != hls || download.drm != drm { return nil }
        return download
    }

    /// Notes a download as the holder of its content (the first one stays when several do).
    mutating func indexContent(_ download: Download) {
        let key = Self.contentKey(download)
        if contentIndex[key] == nil { contentIndex[key] = download.id }
    }

    mutating func unindexContent(_ download: Download) {
        let key = Self.contentKey(download)
        if contentIndex[key] == download.id { contentIndex[key] = nil }
    }
}
