import CStashProto
import Foundation
import StashCore

extension Download {
    /// The public record: progress, speed and remaining time are the values computed from
    /// the download; the resume validators (etag, last-modified) stay in the daemon. A
    /// licence's time left is worked out at `now`, the sender's clock's.
    func wire(in arena: PackArena, now: Date) -> UnsafeMutablePointer<Stash__V1__Download> {
        var message = Stash__V1__Download()
        stash__v1__download__init(&message)
        message.id = arena.cString(id)
        message.uri = arena.cString(uri)
        message.title = arena.cString(title)
        message.state = state.wire
        message.progress = UInt32(clamping: progressPercent)
        message.downloaded_bytes = UInt64(clamping: downloadedBytes)
        message.total_bytes = totalBytes ?? -1
        message.speed = UInt64(clamping: speed)
        message.remaining_time = remainingTime ?? -1
        message.quality = arena.cString(quality)
        message.has_subtitles = WireValue.bool(hasSubtitles)
        message.has_drm = WireValue.bool(hasDRM)
        message.asset_path = arena.cString(assetPath)
        message.error = error?.wire(in: arena)
        message.created_at = WireValue.milliseconds(createdAt)
        message.completed_at = completedAt.map(WireValue.milliseconds) ?? 0
        message.sha256 = arena.cString(sha256)
        message.n_headers = headers.count
        message.headers = arena.array(headers) { Optional($0.wire(in: arena)) }
        message.state_reason = arena.cString(stateReason)
        message.bundle = WireValue.bool(isBundle)
        if isBundle {
            message.n_files = files.count
            message.files = arena.array(files) { Optional($0.wire(in: arena)) }
        }
        message.files_done = UInt32(clamping: filesDone)
        message.files_total = UInt32(clamping: filesTotal)
        message.hls = hls?.wire(in: arena)
        message.drm = drm?.wire(in: arena)
        if license != nil {
            message.license = LicenseStatus(self, at: now).wire(in: arena)
        }
        message.app_data = arena.bytes(appData)
        message.group = arena.cString(group)
        message.n_text_tracks = textTracks.count
        message.text_tracks = arena.array(textTracks) { Optional($0.wire(in: arena)) }
        message.rate_limit = UInt64(clamping: rateLimit)
        message.expect = arena.cString(expect)
        message.min_size = UInt64(clamping: minSize)
        message.priority = priority.wire
        message.network = arena.cString(network?.rawValue ?? "")
        message.on_battery = arena.cString(onBattery?.rawValue ?? "")
        return arena.store(message)
    }

    /// progress and remaining_time are not read back: `Download` computes them from the
    /// bytes, the total and the speed, which are. They are still checked: a record with a
    /// percent above 100 comes from a peer that cannot be trusted with the rest.
    init(wire message: UnsafePointer<Stash__V1__Download>) throws {
        let m = message.pointee
        _ = try WireValue.percent(m.progress, field: "Download.progress")
        _ = try WireValue.optional(m.remaining_time, field: "Download.remaining_time")
        let files = try WireValue.counts(done: m.files_done, total: m.files_total, field: "Download.files_done", totalField: "files_total")
        self.init(
            id: try WireValue.string(m.id, field: "Download.id"),
            uri: try WireValue.string(m.uri, field: "Download.uri"),
            title: try WireValue.string(m.title, field: "Download.title"),
            state: try DownloadState(wire: m.state, field: "Download.state"),
            downloadedBytes: try WireValue.int64(m.downloaded_bytes, field: "Download.downloaded_bytes"),
            totalBytes: try WireValue.optional(m.total_bytes, field: "Download.total_bytes"),
            speed: try WireValue.int64(m.speed, field: "Download.speed"),
            quality: try WireValue.string(m.quality, field: "Download.quality"),
            hasSubtitles: WireValue.bool(m.has_subtitles),
            hasDRM: WireValue.bool(m.has_drm),
            assetPath: try WireValue.string(m.asset_path, field: "Download.asset_path"),
            error: try m.error.map { try DownloadError(wire: $0) },
            stateReason: try WireValue.string(m.state_reason, field: "Download.state_reason"),
            createdAt: WireValue.date(milliseconds: m.created_at),
            completedAt: m.completed_at == 0 ? nil : WireValue.date(milliseconds: m.completed_at),
            sha256: try WireValue.string(m.sha256, field: "Download.sha256"),
            headers: try WireValue.elements(m.headers, count: m.n_headers) { try HTTPHeader(wire: $0) },
            isBundle: WireValue.bool(m.bundle),
            files: try WireValue.elements(m.files, count: m.n_files) { try DownloadFile(wire: $0) },
            hls: try m.hls.map { try HLSOptions(wire: $0) })
        drm = try m.drm.flatMap { try DRMParams.decode(wire: $0) }
        license = try m.license.flatMap { try LicenseStatus(wire: $0).terms }
        (filesDone, filesTotal) = files
        appData = try WireValue.bytes(m.app_data, field: "Download.app_data")
        group = try WireValue.string(m.group, field: "Download.group")
        textTracks = try WireValue.elements(m.text_tracks, count: m.n_text_tracks) { try TextTrack(wire: $0) }
        rateLimit = try WireValue.int64(m.rate_limit, field: "Download.rate_limit")
        expect = try WireValue.string(m.expect, field: "Download.expect")
        minSize = try WireValue.int64(m.min_size, field: "Download.min_size")
        priority = try DownloadPriority(wire: m.priority, field: "Download.priority")
        network = try NetworkRequirement(wire: m.network, field: "Download.network")
        onBattery = try BatteryPolicy(wire: m.on_battery, field: "Download.on_battery")
    }
}
