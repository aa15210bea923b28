import Foundation
import NIOCore
import StashCore
import StashWire
import XCTest

/// The golden frames of Tests/GoldenFrames through the Swift codec, the daemon's: each frame
/// decodes to the value its JSON description describes (built here from the JSON), and that
/// value encodes to the same bytes. The bytes come from protobuf's own encoder
/// (Tests/GoldenFrames/generate.py); the C and Python clients are held to the same files, so a
/// change to the schema or a codec that breaks one of the three breaks a test.
final class GoldenFrameTests: XCTestCase {
    private static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("GoldenFrames")

    private struct Frame {
        let name: String
        let description: [String: Any]
        let bytes: [UInt8]
        /// What a decoder that drops the unknown fields writes back; nil when nothing is written back.
        let reencoded: [UInt8]?

        var value: [String: Any] { description["value"] as? [String: Any] ?? [:] }
        var payload: ByteBuffer { ByteBuffer(bytes: bytes.dropFirst(4)) }
    }

    private func frames(_ message: String) throws -> [Frame] {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertGreaterThan(names.count, 40, "golden frames in \(Self.folder.path)")
        return try names.compactMap { name in
            let stem = Self.folder.appendingPathComponent(String(name.dropLast(5)))
            let description = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(contentsOf: Self.folder.appendingPathComponent(name))) as? [String: Any])
            guard description["message"] as? String == message else { return nil }
            let bytes = [UInt8](try Data(contentsOf: stem.appendingPathExtension("bin")))
            let known = stem.appendingPathExtension("known.bin")
            let reencoded: [UInt8]?
            if FileManager.default.fileExists(atPath: known.path) {
                reencoded = [UInt8](try Data(contentsOf: known))
            } else {
                reencoded = description["reencode"] as? Bool == false ? nil : bytes
            }
            return Frame(name: name, description: description, bytes: bytes, reencoded: reencoded)
        }
    }

    func testRequestsDecodeToTheirDescriptionsAndEncodeToTheSameBytes() throws {
        for frame in try frames("Request") {
            let expected = try Self.request(frame.value)
            XCTAssertEqual(try WireCodec.decodeRequest(frame.payload), expected, frame.name)
            var buffer = ByteBuffer()
            WireCodec.encode(expected, into: &buffer)
            XCTAssertEqual(Array(buffer.readableBytesView), frame.reencoded, frame.name)
        }
    }

    func testServerMessagesDecodeToTheirDescriptionsAndEncodeToTheSameBytes() throws {
        for frame in try frames("ServerMessage") {
            let expected = try Self.serverMessage(frame.value, laterKind: frame.description["unknown_in"] as? String == "event")
            XCTAssertEqual(try WireCodec.decodeServerMessage(frame.payload), expected, frame.name)
            guard let reencoded = frame.reencoded else { continue }
            var buffer = ByteBuffer()
            WireCodec.encode(expected, at: WireTestSupport.sentAt, into: &buffer)
            XCTAssertEqual(Array(buffer.readableBytesView), reencoded, frame.name)
        }
    }

    // MARK: - proto3 JSON to Swift values

    private typealias Object = [String: Any]

    private struct Unmapped: Error, CustomStringConvertible {
        let description: String
    }

    private static func str(_ o: Object?, _ key: String) -> String { o?[key] as? String ?? "" }
    private static func bool(_ o: Object?, _ key: String) -> Bool { o?[key] as? Bool ?? false }
    private static func obj(_ o: Object?, _ key: String) -> Object? { o?[key] as? Object }
    private static func objs(_ o: Object?, _ key: String) -> [Object] { o?[key] as? [Object] ?? [] }
    private static func strs(_ o: Object?, _ key: String) -> [String] { o?[key] as? [String] ?? [] }

    /// A number as proto3 JSON writes it: 64-bit ones as strings, the others as numbers.
    private static func int(_ o: Object?, _ key: String) -> Int64 {
        if let text = o?[key] as? String { return Int64(text) ?? 0 }
        return (o?[key] as? NSNumber)?.int64Value ?? 0
    }

    private static func uint(_ o: Object?, _ key: String) -> UInt64 {
        if let text = o?[key] as? String { return UInt64(text) ?? 0 }
        return (o?[key] as? NSNumber)?.uint64Value ?? 0
    }

    private static func double(_ o: Object?, _ key: String) -> Double { (o?[key] as? NSNumber)?.doubleValue ?? 0 }
    /// A field with presence (a oneof of one): nil when the description leaves it out.
    private static func given(_ o: Object?, _ key: String) -> Double? { (o?[key] as? NSNumber)?.doubleValue }
    private static func date(_ ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1000) }
    private static func bytes(_ o: Object?, _ key: String) -> [UInt8] { [UInt8](Data(base64Encoded: str(o, key)) ?? Data()) }

    private static func state(_ o: Object?, _ key: String) throws -> DownloadState {
        let name = str(o, key)
        guard let state = name.isEmpty ? .notDownloaded : DownloadState(name: name) else { throw Unmapped(description: "state \(name)") }
        return state
    }

    private static func headers(_ o: Object?, _ key: String) -> [HTTPHeader] {
        objs(o, key).map { HTTPHeader(name: str($0, "name"), value: str($0, "value")) }
    }

    /// A SetDownload header change: nil when neither a header nor the clear is given.
    private static func headerChange(_ o: Object?, _ key: String, clear: String) -> HeaderChange? {
        let change = HeaderChange(headers: headers(o, key), clear: bool(o, clear))
        return change.isEmpty ? nil : change
    }

    private static func textTracks(_ o: Object?, _ key: String) -> [TextTrack] {
        objs(o, key).map {
            TextTrack(uri: str($0, "uri"), language: str($0, "lang"), title: str($0, "title"), type: str($0, "type"), path: str($0, "path"))
        }
    }

    private static func hls(_ o: Object?) throws -> HLSOptions? {
        guard let o else { return nil }
        let name = str(o, "quality")
        guard let quality = name.isEmpty ? .auto : HLSOptions.Quality(rawValue: name) else { throw Unmapped(description: "quality \(name)") }
        return HLSOptions(
            quality: quality, maxHeight: int(o, "max_height") == 0 ? nil : Int(int(o, "max_height")),
            bandwidth: uint(o, "bandwidth") == 0 ? nil : uint(o, "bandwidth"), subtitles: strs(o, "subtitles"),
            audio: strs(o, "audio"), segmentConcurrency: Int(int(o, "segment_concurrency")), start: given(o, "start"), end: given(o, "end"))
    }

    /// nil when left out (proto3 JSON leaves out the default, normal).
    private static func priority(_ o: Object?, _ key: String) throws -> DownloadPriority? {
        switch str(o, key) {
        case "": return o?[key] == nil ? nil : .normal
        case "PRIORITY_NORMAL": return .normal
        case "PRIORITY_LOW": return .low
        case "PRIORITY_HIGH": return .high
        case let other: throw Unmapped(description: "priority \(other)")
        }
    }

    private static func exportFormat(_ o: Object?) throws -> ExportFormat? {
        switch str(o, "format") {
        case "": return nil
        case "EXPORT_FORMAT_MP4": return .mp4
        case "EXPORT_FORMAT_MKV": return .mkv
        case let other: throw Unmapped(description: "export format \(other)")
        }
    }

    private static func drm(_ o: Object?) -> DRMParams? {
        guard let o else { return nil }
        return DRMParams(
            licenseServer: str(o, "license_server"), headers: headers(o, "license_headers"), contentID: str(o, "content_id"),
            certificateURL: str(o, "certificate_url"))
    }

    private static func request(_ value: Object) throws -> Request {
        let id = uint(value, "id")
        guard let op = value.keys.first(where: { $0 != "id" }) else { throw Unmapped(description: "a request without an op") }
        let b = obj(value, op)
        var operation: StashWire.Operation
        switch op {
        case "hello":
            operation = .hello(HelloRequest(protocolVersion: Int(int(b, "protocol_version")), clientName: str(b, "client_name")))
        case "add_download":
            operation = .addDownload(AddDownloadRequest(
                id: str(b, "id"), uri: str(b, "uri"), title: str(b, "title"), sha256: str(b, "sha256"), headers: headers(b, "headers"),
                files: objs(b, "files").map {
                    BundleFileSpec(
                        url: str($0, "url"), path: str($0, "path"), size: int($0, "size"), sha256: str($0, "sha256"), expect: str($0, "expect"),
                        minSize: int($0, "min_size"))
                },
                hls: try hls(obj(b, "hls")), drm: drm(obj(b, "drm")), force: bool(b, "force"), appData: bytes(b, "app_data"),
                group: str(b, "group"), append: bool(b, "append"), textTracks: textTracks(b, "text_tracks"),
                rateLimit: int(b, "rate_limit"), expect: str(b, "expect"), minSize: int(b, "min_size"),
                priority: try priority(b, "priority") ?? .normal))
            if case .addDownload(var add) = operation {
                add.replace = bool(b, "replace")
                add.network = NetworkRequirement(rawValue: str(b, "network"))
                add.onBattery = BatteryPolicy(rawValue: str(b, "on_battery"))
                operation = .addDownload(add)
            }
        case "set_download":
            operation = .setDownload(
                DownloadChanges(id: str(b, "id"), priority: try priority(b, "priority"), rateLimit: b?["rate_limit"] == nil ? nil : int(b, "rate_limit"),
                    uri: b?["uri"] == nil ? nil : str(b, "uri"), file: b?["file"] == nil ? nil : str(b, "file"),
                    headers: headerChange(b, "headers", clear: "clear_headers"),
                    licenseHeaders: headerChange(b, "license_headers", clear: "clear_license_headers"),
                    network: NetworkRequirement(rawValue: str(b, "network")), onBattery: BatteryPolicy(rawValue: str(b, "on_battery"))))
        case "move":
            let other = str(b, "other")
            let moves: [String: QueueMove] = [
                "MOVE_PLACE_TOP": .top, "MOVE_PLACE_BOTTOM": .bottom, "MOVE_PLACE_BEFORE": .before(other), "MOVE_PLACE_AFTER": .after(other),
            ]
            guard let move = moves[str(b, "place")] else { throw Unmapped(description: "move place \(str(b, "place"))") }
            operation = .move(id: str(b, "id"), move)
        case "get_download": operation = .getDownload(id: str(b, "id"))
        case "has_download": operation = .hasDownload(id: str(b, "id"))
        case "pause": operation = .pause(id: str(b, "id"))
        case "resume": operation = .resume(id: str(b, "id"))
        case "cancel": operation = .cancel(id: str(b, "id"))
        case "pause_all": operation = .pauseAll
        case "pause_group": operation = .pauseGroup(GroupRequest(group: str(b, "group"), includeFailed: bool(b, "include_failed")))
        case "resume_group": operation = .resumeGroup(GroupRequest(group: str(b, "group"), includeFailed: bool(b, "include_failed")))
        case "cancel_group": operation = .cancelGroup(GroupRequest(group: str(b, "group"), includeFailed: bool(b, "include_failed")))
        case "stop": operation = .stop(id: str(b, "id"), reason: str(b, "reason"))
        case "list_downloads":
            operation = .listDownloads(ListDownloadsRequest(
                states: try strs(b, "states").map { name in
                    guard let state = DownloadState(name: name) else { throw Unmapped(description: "state \(name)") }
                    return state
                },
                pageSize: Int(int(b, "page_size")), pageToken: str(b, "page_token"), group: str(b, "group")))
        case "subscribe":
            operation = .subscribe(SubscribeRequest(
                ids: strs(b, "ids"), minProgressStep: Int(int(b, "min_progress_step")), minIntervalMs: Int(int(b, "min_interval_ms")),
                replayFromSeq: uint(b, "replay_from_seq"),
                states: try strs(b, "states").map { name in
                    guard let state = DownloadState(name: name) else { throw Unmapped(description: "state \(name)") }
                    return state
                }))
        case "set_config":
            operation = .setConfig(objs(b, "entries").map { ConfigEntry(key: str($0, "key"), value: str($0, "value")) })
        case "verify":
            operation = .verify(VerifyRequest(deep: bool(b, "deep"), repair: bool(b, "repair"), dryRun: bool(b, "dry_run")))
        case "get_manifest_info":
            operation = .getManifestInfo(uri: str(b, "uri"), headers: headers(b, "headers"), start: given(b, "start"), end: given(b, "end"))
        case "add_subtitles":
            operation = .addSubtitles(id: str(b, "id"), languages: strs(b, "languages"), textTracks: textTracks(b, "text_tracks"))
        case "get_playback_key": operation = .getPlaybackKey(id: str(b, "id"), keyID: str(b, "key_id"))
        case "forget": operation = .forget(id: str(b, "id"), moveTo: str(b, "move_to"))
        case "adopt":
            operation = .adopt(AdoptRequest(
                path: str(b, "path"), id: str(b, "id"), url: str(b, "url"), sha256: str(b, "sha256"), link: bool(b, "link")))
        case "export":
            operation = .export(ExportRequest(
                id: str(b, "id"), dir: str(b, "dir"), decrypt: bool(b, "decrypt"), file: str(b, "file"), format: try exportFormat(b),
                force: bool(b, "force"), link: bool(b, "link")))
        default: throw Unmapped(description: "no Swift value for the op \(op): add it here")
        }
        return Request(id: id, op: operation)
    }

    private static func download(_ o: Object?) throws -> Download {
        let total = int(o, "total_bytes")
        let completedAt = int(o, "completed_at")
        let kind = str(obj(o, "error"), "kind")
        var record = Download(
            id: str(o, "id"), uri: str(o, "uri"), title: str(o, "title"), state: try state(o, "state"),
            downloadedBytes: int(o, "downloaded_bytes"), totalBytes: total < 0 ? nil : total, speed: int(o, "speed"),
            quality: str(o, "quality"), hasSubtitles: bool(o, "has_subtitles"), hasDRM: bool(o, "has_drm"),
            assetPath: str(o, "asset_path"),
            error: try obj(o, "error").map { error in
                let kinds: [String: DownloadError.Kind] = [
                    "ERROR_NETWORK": .network, "ERROR_HTTP": .http, "ERROR_STORAGE": .storage, "ERROR_VALIDATION": .validation]
                guard let errorKind = kind.isEmpty ? DownloadError.Kind.none : kinds[kind] else { throw Unmapped(description: "error \(kind)") }
                return DownloadError(errorKind, str(error, "message"), httpStatus: Int(int(error, "http_status")))
            },
            stateReason: str(o, "state_reason"), createdAt: date(int(o, "created_at")),
            completedAt: completedAt == 0 ? nil : date(completedAt), sha256: str(o, "sha256"), headers: headers(o, "headers"),
            isBundle: bool(o, "bundle"),
            files: objs(o, "files").map {
                DownloadFile(
                    url: str($0, "url"), path: str($0, "path"), size: int($0, "size") == 0 ? nil : int($0, "size"),
                    sha256: str($0, "sha256"), downloadedBytes: int($0, "downloaded_bytes"), done: bool($0, "done"),
                    expect: str($0, "expect"), minSize: int($0, "min_size"))
            },
            hls: try hls(obj(o, "hls")))
        record.drm = drm(obj(o, "drm"))
        record.filesDone = Int(int(o, "files_done"))
        record.filesTotal = Int(int(o, "files_total"))
        record.appData = bytes(o, "app_data")
        record.group = str(o, "group")
        record.textTracks = textTracks(o, "text_tracks")
        record.rateLimit = int(o, "rate_limit")
        record.priority = try priority(o, "priority") ?? .normal
        record.expect = str(o, "expect")
        record.minSize = int(o, "min_size")
        record.network = NetworkRequirement(rawValue: str(o, "network"))
        record.onBattery = BatteryPolicy(rawValue: str(o, "on_battery"))
        if obj(o, "license") != nil { throw Unmapped(description: "a record's licence is computed when it is sent") }
        return record
    }

    private static func stateCounts(_ o: Object?, _ key: String, _ value: String) throws -> [DownloadState: Int64] {
        var out: [DownloadState: Int64] = [:]
        for entry in objs(o, key) { out[try state(entry, "state")] = int(entry, value) }
        return out
    }

    private static func report(_ o: Object?) throws -> VerifyReport {
        let finished = int(o, "finished_at")
        return VerifyReport(
            findings: try objs(o, "findings").map { f in
                let names = ["FINDING_UNKNOWN", "FINDING_MISSING_FILE", "FINDING_WRONG_SIZE", "FINDING_WRONG_DIGEST",
                             "FINDING_ORPHAN_FOLDER", "FINDING_ORPHAN_FILE", "FINDING_STALE_PART"]
                let name = str(f, "kind").isEmpty ? names[0] : str(f, "kind")
                guard let number = names.firstIndex(of: name), let kind = VerifyFinding.Kind(rawValue: number) else {
                    throw Unmapped(description: "finding \(name)")
                }
                return VerifyFinding(kind: kind, id: str(f, "id"), path: str(f, "path"), detail: str(f, "detail"), repaired: bool(f, "repaired"))
            },
            downloadsChecked: Int(int(o, "downloads_checked")), filesChecked: Int(int(o, "files_checked")),
            finishedAt: finished == 0 ? nil : date(finished), durationMs: Int(int(o, "duration_ms")), deep: bool(o, "deep"),
            repaired: bool(o, "repaired"), requeued: Int(int(o, "requeued")), filesDeleted: Int(int(o, "files_deleted")),
            bytesFreed: int(o, "bytes_freed"))
    }

    private static func renditions(_ o: Object?, _ key: String) -> [ManifestInfo.RenditionInfo] {
        objs(o, key).map {
            ManifestInfo.RenditionInfo(
                groupID: str($0, "group_id"), language: str($0, "language"), name: str($0, "name"), isDefault: bool($0, "default"),
                forced: bool($0, "forced"), uri: str($0, "uri"))
        }
    }

    private static func licence(_ o: Object?) throws -> LicenseStatus {
        let verdicts: [String: LicenseCheck.Verdict] = [
            "valid": .valid, "license_expired": .licenseExpired, "playback_expired": .playbackExpired, "refused": .refused, "none": .none]
        guard let verdict = verdicts[str(o, "verdict")] else { throw Unmapped(description: "verdict \(str(o, "verdict"))") }
        let expires = int(o, "expires_at"), acquired = int(o, "acquired_at"), firstPlayback = int(o, "first_playback_at")
        var terms: LicenseTerms?
        if acquired != 0 {
            let duration = int(o, "playback_duration")
            var held = LicenseTerms(
                acquiredAt: date(acquired), expiresIn: nil, playbackDuration: duration < 0 ? nil : TimeInterval(duration),
                kids: strs(o, "key_ids"))
            held.expiresAt = expires == 0 ? nil : date(expires)
            held.firstPlaybackAt = firstPlayback == 0 ? nil : date(firstPlayback)
            terms = held
        }
        let licenseLeft = int(o, "license_seconds_left"), playbackLeft = int(o, "playback_seconds_left")
        return LicenseStatus(
            id: str(o, "id"),
            check: LicenseCheck(
                verdict: verdict, licenseSecondsLeft: licenseLeft < 0 ? nil : licenseLeft,
                playbackSecondsLeft: playbackLeft < 0 ? nil : playbackLeft, expiresAt: expires == 0 ? nil : date(expires)),
            terms: terms, state: try state(o, "state"))
    }

    private static func result(_ response: Object) throws -> ResponseResult {
        let keys = Set(response.keys).subtracting(["id", "status"])
        guard let key = keys.first else { return .empty }
        let r = obj(response, key)
        switch key {
        case "hello":
            return .hello(HelloResult(protocolVersion: Int(int(r, "protocol_version")), daemonVersion: str(r, "daemon_version"), features: strs(r, "features")))
        case "download": return .download(try download(obj(r, "download")), created: bool(r, "created"))
        case "list":
            var totals = GroupTotals()
            let t = obj(r, "totals")
            totals.bytesDownloaded = int(t, "bytes_downloaded")
            totals.bytesTotal = int(t, "bytes_total")
            totals.filesDone = Int(int(t, "files_done"))
            totals.filesTotal = Int(int(t, "files_total"))
            totals.states = try stateCounts(t, "states", "count").mapValues { Int($0) }
            return .list(DownloadPage(
                downloads: try objs(r, "downloads").map(download), nextPageToken: str(r, "next_page_token"), total: Int(int(r, "total")),
                totals: totals))
        case "has": return .has(exists: bool(r, "exists"), state: try state(r, "state"))
        case "count": return .count(affected: Int(int(r, "affected")))
        case "config":
            var config = DaemonConfig()
            config.maxParallel = Int(int(r, "max_parallel"))
            config.retryMaxAttempts = Int(int(r, "retry_max_attempts"))
            config.retryBaseDelayMs = Int(int(r, "retry_base_delay_ms"))
            config.retryMaxDelayMs = Int(int(r, "retry_max_delay_ms"))
            config.rateLimit = int(r, "rate_limit")
            config.lowSpeedLimit = Int(int(r, "low_speed_limit"))
            config.lowSpeedTime = Int(int(r, "low_speed_time"))
            config.filesPerDownload = Int(int(r, "files_per_download"))
            config.maxConnections = Int(int(r, "max_connections"))
            config.maxConnectionsPerHost = Int(int(r, "max_connections_per_host"))
            config.storageReserve = int(r, "storage_reserve")
            config.rateSchedule = str(r, "rate_schedule")
            config.preempt = bool(r, "preempt")
            config.network = NetworkRequirement(rawValue: str(r, "network")) ?? .any
            config.onBattery = BatteryPolicy(rawValue: str(r, "on_battery")) ?? .continue
            config.notify = NotifyPolicy(rawValue: str(r, "notify")) ?? .none
            config.inhibitSleep = SleepInhibitMode(rawValue: str(r, "inhibit_sleep")) ?? .delay
            return .config(config)
        case "stats":
            return .stats(DownloadStats(
                speed: int(r, "speed"), counts: try stateCounts(r, "counts", "count").mapValues { Int($0) },
                activeTransfers: Int(int(r, "active_transfers")), downloadedBytes: int(r, "downloaded_bytes")))
        case "system_info":
            var info = SystemInfo(
                dataDir: str(r, "data_dir"), diskTotal: int(r, "disk_total"), diskFree: int(r, "disk_free"), bytesHeld: int(r, "bytes_held"),
                daemonVersion: str(r, "daemon_version"), socketPath: str(r, "socket_path"), downloadCount: Int(int(r, "download_count")),
                bytesByState: try stateCounts(r, "bytes_by_state", "bytes"), assetCount: Int(int(r, "asset_count")),
                lastVerify: try report(obj(r, "last_verify")), warnings: strs(r, "warnings"), rateLimitNow: int(r, "rate_limit_now"),
                rateLimitChangesAt: int(r, "rate_limit_changes_at") == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(int(r, "rate_limit_changes_at"))),
                rateLimitNext: int(r, "rate_limit_next"))
            info.metered = bool(r, "metered")
            info.onBattery = bool(r, "on_battery")
            info.networkService = str(r, "network_service")
            info.powerService = str(r, "power_service")
            info.sleepInhibitor = str(r, "sleep_inhibitor")
            info.notificationService = str(r, "notification_service")
            return .systemInfo(info)
        case "verify": return .verify(try report(r))
        case "purge":
            return .purge(PurgeResult(filesDeleted: Int(int(r, "files_deleted")), bytesFreed: int(r, "bytes_freed"), paths: strs(r, "paths")))
        case "manifest_info":
            return .manifestInfo(ManifestInfo(
                variants: objs(r, "variants").map { v in
                    ManifestInfo.VariantInfo(
                        uri: str(v, "uri"), bandwidth: uint(v, "bandwidth"),
                        averageBandwidth: uint(v, "average_bandwidth") == 0 ? nil : uint(v, "average_bandwidth"),
                        width: int(v, "width") == 0 ? nil : Int(int(v, "width")), height: int(v, "height") == 0 ? nil : Int(int(v, "height")),
                        codecs: strs(v, "codecs"), frameRate: double(v, "frame_rate") == 0 ? nil : double(v, "frame_rate"),
                        encryption: strs(v, "encryption"), estimatedBytes: int(v, "estimated_bytes"), sizeIsExact: bool(v, "size_is_exact"),
                        duration: double(v, "duration"))
                },
                audio: renditions(r, "audio"), subtitles: renditions(r, "subtitles"), duration: double(r, "duration"),
                warnings: strs(r, "warnings"), start: given(r, "start"), end: given(r, "end")))
        case "export":
            let kinds: [String: ExportTrack.Kind] = ["EXPORT_TRACK_VIDEO": .video, "EXPORT_TRACK_AUDIO": .audio, "EXPORT_TRACK_SUBTITLES": .subtitles]
            let tracks = try objs(r, "tracks").map { t -> ExportTrack in
                guard let kind = kinds[str(t, "kind")] else { throw Unmapped(description: "export track kind \(str(t, "kind"))") }
                return ExportTrack(kind: kind, language: str(t, "language"), codec: str(t, "codec"), title: str(t, "title"))
            }
            return .export(ExportResult(
                dir: str(r, "dir"), files: Int(int(r, "files")), bytes: int(r, "bytes"), decrypted: bool(r, "decrypted"), file: str(r, "file"),
                format: try exportFormat(r), tracks: tracks, linked: bool(r, "linked")))
        case "subtitles": return .subtitles(renditions(r, "subtitles"), textTracks: textTracks(r, "text_tracks"))
        case "license": return .license(try licence(r))
        case "playback_key":
            let left = int(r, "playback_seconds_left")
            return .playbackKey(PlaybackKey(key: bytes(r, "key"), keyID: str(r, "key_id"), playbackSecondsLeft: left < 0 ? nil : left))
        default: throw Unmapped(description: "no Swift value for the result \(key): add it here")
        }
    }

    private static func serverMessage(_ value: Object, laterKind: Bool) throws -> ServerMessage {
        if let response = obj(value, "response") {
            let id = uint(response, "id")
            if let status = obj(response, "status"), let name = status["code"] as? String {
                guard let code = StashError.Code.allCases.first(where: { $0.name == name }) else { throw Unmapped(description: "code \(name)") }
                return .response(Response(id: id, result: .failure(StashError(code, str(status, "message")))))
            }
            return .response(Response(id: id, result: .success(try result(response))))
        }
        let e = try XCTUnwrap(obj(value, "event"))
        if laterKind { return .laterEvent(seq: uint(e, "seq")) }
        let kind: DownloadEvent.Kind
        if let changed = obj(e, "state_changed") {
            kind = .stateChanged(try download(obj(changed, "download")), previous: try state(changed, "previous"))
        } else if let p = obj(e, "progress") {
            let total = int(p, "total_bytes"), remaining = int(p, "remaining_time")
            kind = .progress(ProgressUpdate(
                id: str(p, "id"), downloadedBytes: int(p, "downloaded_bytes"), totalBytes: total < 0 ? nil : total,
                progressPercent: Int(int(p, "progress")), speed: int(p, "speed"), remainingTime: remaining < 0 ? nil : remaining,
                filesDone: Int(int(p, "files_done")), filesTotal: Int(int(p, "files_total"))))
        } else if let removed = obj(e, "removed") {
            kind = .removed(id: str(removed, "id"))
        } else if let l = obj(e, "license") {
            let kinds: [String: LicenseEvent.Kind] = [
                "LICENSE_EVENT_DOWNLOADED": .downloaded, "LICENSE_EVENT_RENEWED": .renewed, "LICENSE_EVENT_EXPIRED": .expired,
                "LICENSE_EVENT_RELEASED": .released, "LICENSE_EVENT_ERROR": .error]
            guard let licenseKind = kinds[str(l, "kind")] else { throw Unmapped(description: "licence event \(str(l, "kind"))") }
            kind = .license(LicenseEvent(
                id: str(l, "id"), kind: licenseKind, message: str(l, "message"), status: try obj(l, "status").map(licence)))
        } else if let p = obj(e, "export_progress") {
            kind = .exportProgress(ExportProgress(
                id: str(p, "id"), file: str(p, "file"), bytesDone: int(p, "bytes_done"), bytesTotal: int(p, "bytes_total"),
                progressPercent: Int(int(p, "progress"))))
        } else if let settings = obj(e, "settings_changed") {
            kind = .settingsChanged(try download(obj(settings, "download")), changed: (settings["changed"] as? [String]) ?? [])
        } else if let lost = obj(e, "events_lost") {
            kind = .eventsLost(EventsLost(firstSeq: uint(lost, "first_seq"), lastSeq: uint(lost, "last_seq"), count: Int(int(lost, "count"))))
        } else {
            throw Unmapped(description: "an event of no kind this test knows")
        }
        return .event(DownloadEvent(seq: uint(e, "seq"), time: date(int(e, "time")), kind: kind))
    }
}
