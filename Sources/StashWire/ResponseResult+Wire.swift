import CStashProto
import Foundation
import StashCore

extension ResponseResult {
    /// Sets the `result` oneof of a Response; `.empty` leaves it unset.
    func setWire(on response: inout Stash__V1__Response, in arena: PackArena, now: Date) {
        switch self {
        case .empty:
            response.result_case = STASH__V1__RESPONSE__RESULT__NOT_SET
        case .hello(let hello):
            response.result_case = STASH__V1__RESPONSE__RESULT_HELLO
            response.hello = hello.wire(in: arena)
        case .download(let download, let created):
            var result = Stash__V1__DownloadResult()
            stash__v1__download_result__init(&result)
            result.download = download.wire(in: arena, now: now)
            result.created = WireValue.bool(created)
            response.result_case = STASH__V1__RESPONSE__RESULT_DOWNLOAD
            response.download = arena.store(result)
        case .list(let page):
            response.result_case = STASH__V1__RESPONSE__RESULT_LIST
            response.list = page.wire(in: arena, now: now)
        case .has(let exists, let state):
            var result = Stash__V1__HasDownloadResult()
            stash__v1__has_download_result__init(&result)
            result.exists = WireValue.bool(exists)
            result.state = state.wire
            response.result_case = STASH__V1__RESPONSE__RESULT_HAS
            response.has = arena.store(result)
        case .count(let affected):
            var result = Stash__V1__CountResult()
            stash__v1__count_result__init(&result)
            result.affected = UInt32(clamping: affected)
            response.result_case = STASH__V1__RESPONSE__RESULT_COUNT
            response.count = arena.store(result)
        case .stats(let stats):
            response.result_case = STASH__V1__RESPONSE__RESULT_STATS
            response.stats = stats.wire(in: arena)
        case .systemInfo(let info):
            response.result_case = STASH__V1__RESPONSE__RESULT_SYSTEM_INFO
            response.system_info = info.wire(in: arena)
        case .config(let config):
            response.result_case = STASH__V1__RESPONSE__RESULT_CONFIG
            response.config = config.wire(in: arena)
        case .verify(let report):
            response.result_case = STASH__V1__RESPONSE__RESULT_VERIFY
            response.verify = report.wire(in: arena)
        case .purge(let result):
            response.result_case = STASH__V1__RESPONSE__RESULT_PURGE
            response.purge = result.wire(in: arena)
        case .manifestInfo(let info):
            response.result_case = STASH__V1__RESPONSE__RESULT_MANIFEST_INFO
            response.manifest_info = info.wire(in: arena)
        case .export(let result):
            response.result_case = STASH__V1__RESPONSE__RESULT_EXPORT
            response.export = result.wire(in: arena)
        case .subtitles(let renditions, let textTracks):
            var message = Stash__V1__SubtitlesResult()
            stash__v1__subtitles_result__init(&message)
            message.n_subtitles = renditions.count
            message.subtitles = arena.array(renditions) { Optional($0.wire(in: arena)) }
            message.n_text_tracks = textTracks.count
            message.text_tracks = arena.array(textTracks) { Optional($0.wire(in: arena)) }
            response.result_case = STASH__V1__RESPONSE__RESULT_SUBTITLES
            response.subtitles = arena.store(message)
        case .license(let status):
            response.result_case = STASH__V1__RESPONSE__RESULT_LICENSE
            response.license = status.wire(in: arena)
        case .playbackKey(let key):
            response.result_case = STASH__V1__RESPONSE__RESULT_PLAYBACK_KEY
            response.playback_key = key.wire(in: arena)
        }
    }

    /// The result of a successful Response; no result set (or one this version does not
    /// know) is `.empty`.
    init(wire response: UnsafePointer<Stash__V1__Response>) throws {
        let r = response.pointee
        switch r.result_case {
        case STASH__V1__RESPONSE__RESULT_HELLO:
            self = .hello(try HelloResult(wire: try WireValue.message(r.hello, field: "Response.hello")))
        case STASH__V1__RESPONSE__RESULT_DOWNLOAD:
            let result = try WireValue.message(r.download, field: "Response.download")
            let download = try WireValue.message(result.pointee.download, field: "DownloadResult.download")
            self = .download(try Download(wire: download), created: WireValue.bool(result.pointee.created))
        case STASH__V1__RESPONSE__RESULT_LIST:
            self = .list(try DownloadPage(wire: try WireValue.message(r.list, field: "Response.list")))
        case STASH__V1__RESPONSE__RESULT_HAS:
            let result = try WireValue.message(r.has, field: "Response.has")
            self = .has(
                exists: WireValue.bool(result.pointee.exists),
                state: try DownloadState(wire: result.pointee.state, field: "HasDownloadResult.state"))
        case STASH__V1__RESPONSE__RESULT_COUNT:
            self = .count(affected: Int(try WireValue.message(r.count, field: "Response.count").pointee.affected))
        case STASH__V1__RESPONSE__RESULT_STATS:
            self = .stats(try DownloadStats(wire: try WireValue.message(r.stats, field: "Response.stats")))
        case STASH__V1__RESPONSE__RESULT_SYSTEM_INFO:
            self = .systemInfo(try SystemInfo(wire: try WireValue.message(r.system_info, field: "Response.system_info")))
        case STASH__V1__RESPONSE__RESULT_CONFIG:
            self = .config(try DaemonConfig(wire: try WireValue.message(r.config, field: "Response.config")))
        case STASH__V1__RESPONSE__RESULT_VERIFY:
            self = .verify(try VerifyReport(wire: try WireValue.message(r.verify, field: "Response.verify")))
        case STASH__V1__RESPONSE__RESULT_PURGE:
            self = .purge(try PurgeResult(wire: try WireValue.message(r.purge, field: "Response.purge")))
        case STASH__V1__RESPONSE__RESULT_MANIFEST_INFO:
            self = .manifestInfo(try ManifestInfo(wire: try WireValue.message(r.manifest_info, field: "Response.manifest_info")))
        case STASH__V1__RESPONSE__RESULT_SUBTITLES:
            let m = try WireValue.message(r.subtitles, field: "Response.subtitles").pointee
            self = .subtitles(
                try WireValue.elements(m.subtitles, count: m.n_subtitles) {
                    try ManifestInfo.RenditionInfo(wire: try WireValue.message($0, field: "SubtitlesResult.subtitles"))
                },
                textTracks: try WireValue.elements(m.text_tracks, count: m.n_text_tracks) { try TextTrack(wire: $0) })
        case STASH__V1__RESPONSE__RESULT_EXPORT:
            self = .export(try ExportResult(wire: try WireValue.message(r.export, field: "Response.export")))
        case STASH__V1__RESPONSE__RESULT_LICENSE:
            self = .license(try LicenseStatus(wire: try WireValue.message(r.license, field: "Response.license")))
        case STASH__V1__RESPONSE__RESULT_PLAYBACK_KEY:
            self = .playbackKey(try PlaybackKey(wire: try WireValue.message(r.playback_key, field: "Response.playback_key")))
        default:
            self = .empty
        }
    }
}
