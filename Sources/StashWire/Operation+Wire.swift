import CStashProto
import StashCore

extension Operation {
    /// Sets the `op` oneof of a Request; `.unknown` leaves it unset.
    func setWire(on request: inout Stash__V1__Request, in arena: PackArena) {
        switch self {
        case .hello(let hello):
            var message = Stash__V1__HelloRequest()
            stash__v1__hello_request__init(&message)
            message.protocol_version = UInt32(clamping: hello.protocolVersion)
            message.client_name = arena.cString(hello.clientName)
            request.op_case = STASH__V1__REQUEST__OP_HELLO
            request.hello = arena.store(message)
        case .addDownload(let add):
            var message = Stash__V1__AddDownloadRequest()
            stash__v1__add_download_request__init(&message)
            message.id = arena.cString(add.id)
            message.uri = arena.cString(add.uri)
            message.title = arena.cString(add.title)
            message.sha256 = arena.cString(add.sha256)
            message.n_headers = add.headers.count
            message.headers = arena.array(add.headers) { Optional($0.wire(in: arena)) }
            message.n_files = add.files.count
            message.files = arena.array(add.files) { Optional($0.wire(in: arena)) }
            message.hls = add.hls?.wire(in: arena)
            message.drm = add.drm?.wire(in: arena)
            message.force = add.force ? 1 : 0
            message.app_data = arena.bytes(add.appData)
            message.group = arena.cString(add.group)
            message.append = WireValue.bool(add.append)
            message.n_text_tracks = add.textTracks.count
            message.text_tracks = arena.array(add.textTracks) { Optional($0.wire(in: arena)) }
            // A negative rate or minimum goes as a number above Int64.max, which the daemon
            // refuses by name.
            message.rate_limit = UInt64(bitPattern: add.rateLimit)
            message.expect = arena.cString(add.expect)
            message.min_size = UInt64(bitPattern: add.minSize)
            message.priority = add.priority.wire
            message.replace = WireValue.bool(add.replace)
            message.network = arena.cString(add.network?.rawValue ?? "")
            message.on_battery = arena.cString(add.onBattery?.rawValue ?? "")
            request.op_case = STASH__V1__REQUEST__OP_ADD_DOWNLOAD
            request.add_download = arena.store(message)
        case .getDownload(let id):
            request.op_case = STASH__V1__REQUEST__OP_GET_DOWNLOAD
            request.get_download = Self.idRequest(id, in: arena)
        case .listDownloads(let list):
            var message = Stash__V1__ListDownloadsRequest()
            stash__v1__list_downloads_request__init(&message)
            message.n_states = list.states.count
            message.states = arena.array(list.states) { $0.wire }
            message.page_size = UInt32(clamping: list.pageSize)
            message.page_token = arena.cString(list.pageToken)
            message.group = arena.cString(list.group)
            request.op_case = STASH__V1__REQUEST__OP_LIST_DOWNLOADS
            request.list_downloads = arena.store(message)
        case .hasDownload(let id):
            request.op_case = STASH__V1__REQUEST__OP_HAS_DOWNLOAD
            request.has_download = Self.idRequest(id, in: arena)
        case .pause(let id):
            request.op_case = STASH__V1__REQUEST__OP_PAUSE
            request.pause = Self.idRequest(id, in: arena)
        case .resume(let id):
            request.op_case = STASH__V1__REQUEST__OP_RESUME
            request.resume = Self.idRequest(id, in: arena)
        case .cancel(let id):
            request.op_case = STASH__V1__REQUEST__OP_CANCEL
            request.cancel = Self.idRequest(id, in: arena)
        case .pauseAll:
            request.op_case = STASH__V1__REQUEST__OP_PAUSE_ALL
            request.pause_all = Self.emptyRequest(in: arena)
        case .resumeAll:
            request.op_case = STASH__V1__REQUEST__OP_RESUME_ALL
            request.resume_all = Self.emptyRequest(in: arena)
        case .cancelAll:
            request.op_case = STASH__V1__REQUEST__OP_CANCEL_ALL
            request.cancel_all = Self.emptyRequest(in: arena)
        case .subscribe(let subscribe):
            var message = Stash__V1__SubscribeRequest()
            stash__v1__subscribe_request__init(&message)
            message.n_ids = subscribe.ids.count
            message.ids = arena.array(subscribe.ids) { Optional(arena.cString($0)) }
            message.min_progress_step = UInt32(clamping: subscribe.minProgressStep)
            message.min_interval_ms = UInt32(clamping: subscribe.minIntervalMs)
            message.replay_from_seq = subscribe.replayFromSeq
            message.n_states = subscribe.states.count
            message.states = arena.array(subscribe.states) { $0.wire }
            request.op_case = STASH__V1__REQUEST__OP_SUBSCRIBE
            request.subscribe = arena.store(message)
        case .getStats:
            request.op_case = STASH__V1__REQUEST__OP_GET_STATS
            request.get_stats = Self.emptyRequest(in: arena)
        case .getSystemInfo:
            request.op_case = STASH__V1__REQUEST__OP_GET_SYSTEM_INFO
            request.get_system_info = Self.emptyRequest(in: arena)
        case .getConfig:
            request.op_case = STASH__V1__REQUEST__OP_GET_CONFIG
            request.get_config = Self.emptyRequest(in: arena)
        case .setConfig(let entries):
            var message = Stash__V1__SetConfigRequest()
            stash__v1__set_config_request__init(&message)
            message.n_entries = entries.count
            message.entries = arena.array(entries) { entry -> UnsafeMutablePointer<Stash__V1__ConfigEntry>? in
                var wire = Stash__V1__ConfigEntry()
                stash__v1__config_entry__init(&wire)
                wire.key = arena.cString(entry.key)
                wire.value = arena.cString(entry.value)
                return arena.store(wire)
            }
            request.op_case = STASH__V1__REQUEST__OP_SET_CONFIG
            request.set_config = arena.store(message)
        case .verify(let verify):
            var message = Stash__V1__VerifyRequest()
            stash__v1__verify_request__init(&message)
            message.deep = WireValue.bool(verify.deep)
            message.repair = WireValue.bool(verify.repair)
            message.dry_run = WireValue.bool(verify.dryRun)
            request.op_case = STASH__V1__REQUEST__OP_VERIFY
            request.verify = arena.store(message)
        case .purge:
            request.op_case = STASH__V1__REQUEST__OP_PURGE
            request.purge = Self.emptyRequest(in: arena)
        case .getManifestInfo(let uri, let headers, let start, let end):
            var message = Stash__V1__GetManifestInfoRequest()
            stash__v1__get_manifest_info_request__init(&message)
            message.uri = arena.cString(uri)
            message.n_headers = headers.count
            message.headers = arena.array(headers) { Optional($0.wire(in: arena)) }
            if let start {
                message.start_given_case = STASH__V1__GET_MANIFEST_INFO_REQUEST__START_GIVEN_START
                message.start = start
            }
            if let end {
                message.end_given_case = STASH__V1__GET_MANIFEST_INFO_REQUEST__END_GIVEN_END
                message.end = end
            }
            request.op_case = STASH__V1__REQUEST__OP_GET_MANIFEST_INFO
            request.get_manifest_info = arena.store(message)
        case .export(let export):
            var message = Stash__V1__ExportRequest()
            stash__v1__export_request__init(&message)
            message.id = arena.cString(export.id)
            message.dir = arena.cString(export.dir)
            message.decrypt = WireValue.bool(export.decrypt)
            message.file = arena.cString(export.file)
            message.format = ExportFormat.wire(export.format)
            message.force = WireValue.bool(export.force)
            message.link = WireValue.bool(export.link)
            request.op_case = STASH__V1__REQUEST__OP_EXPORT
            request.export = arena.store(message)
        case .addSubtitles(let id, let languages, let textTracks):
            request.op_case = STASH__V1__REQUEST__OP_ADD_SUBTITLES
            request.add_subtitles = Self.subtitlesRequest(id, languages, textTracks, in: arena)
        case .removeSubtitles(let id, let languages):
            request.op_case = STASH__V1__REQUEST__OP_REMOVE_SUBTITLES
            request.remove_subtitles = Self.subtitlesRequest(id, languages, [], in: arena)
        case .getSubtitles(let id):
            request.op_case = STASH__V1__REQUEST__OP_GET_SUBTITLES
            request.get_subtitles = Self.idRequest(id, in: arena)
        case .downloadLicense(let id):
            request.op_case = STASH__V1__REQUEST__OP_DOWNLOAD_LICENSE
            request.download_license = Self.idRequest(id, in: arena)
        case .checkLicense(let id):
            request.op_case = STASH__V1__REQUEST__OP_CHECK_LICENSE
            request.check_license = Self.idRequest(id, in: arena)
        case .renewLicense(let id):
            request.op_case = STASH__V1__REQUEST__OP_RENEW_LICENSE
            request.renew_license = Self.idRequest(id, in: arena)
        case .releaseLicense(let id):
            request.op_case = STASH__V1__REQUEST__OP_RELEASE_LICENSE
            request.release_license = Self.idRequest(id, in: arena)
        case .releaseAllLicenses:
            request.op_case = STASH__V1__REQUEST__OP_RELEASE_ALL_LICENSES
            request.release_all_licenses = Self.emptyRequest(in: arena)
        case .getPlaybackKey(let id, let keyID):
            var message = Stash__V1__PlaybackKeyRequest()
            stash__v1__playback_key_request__init(&message)
            message.id = arena.cString(id)
            message.key_id = arena.cString(keyID)
            request.op_case = STASH__V1__REQUEST__OP_GET_PLAYBACK_KEY
            request.get_playback_key = arena.store(message)
        case .stop(let id, let reason):
            var message = Stash__V1__StopRequest()
            stash__v1__stop_request__init(&message)
            message.id = arena.cString(id)
            message.reason = arena.cString(reason)
            request.op_case = STASH__V1__REQUEST__OP_STOP
            request.stop = arena.store(message)
        case .forget(let id, let moveTo):
            var message = Stash__V1__ForgetRequest()
            stash__v1__forget_request__init(&message)
            message.id = arena.cString(id)
            message.move_to = arena.cString(moveTo)
            request.op_case = STASH__V1__REQUEST__OP_FORGET
            request.forget = arena.store(message)
        case .adopt(let adopt):
            var message = Stash__V1__AdoptRequest()
            stash__v1__adopt_request__init(&message)
            message.path = arena.cString(adopt.path)
            message.id = arena.cString(adopt.id)
            message.url = arena.cString(adopt.url)
            message.sha256 = arena.cString(adopt.sha256)
            message.link = adopt.link ? 1 : 0
            request.op_case = STASH__V1__REQUEST__OP_ADOPT
            request.adopt = arena.store(message)
        case .pauseGroup(let group):
            request.op_case = STASH__V1__REQUEST__OP_PAUSE_GROUP
            request.pause_group = group.wire(in: arena)
        case .resumeGroup(let group):
            request.op_case = STASH__V1__REQUEST__OP_RESUME_GROUP
            request.resume_group = group.wire(in: arena)
        case .cancelGroup(let group):
            request.op_case = STASH__V1__REQUEST__OP_CANCEL_GROUP
            request.cancel_group = group.wire(in: arena)
        case .setDownload(let set):
            request.op_case = STASH__V1__REQUEST__OP_SET_DOWNLOAD
            request.set_download = set.wire(in: arena)
        case .move(let id, let move):
            request.op_case = STASH__V1__REQUEST__OP_MOVE
            request.move = move.wire(id: id, in: arena)
        case .unknown, .invalid:
            request.op_case = STASH__V1__REQUEST__OP__NOT_SET
        }
    }

    private static func idRequest(_ id: String, in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__IdRequest> {
        var message = Stash__V1__IdRequest()
        stash__v1__id_request__init(&message)
        message.id = arena.cString(id)
        return arena.store(message)
    }

    private static func subtitlesRequest(
        _ id: String, _ languages: [String], _ textTracks: [TextTrack], in arena: PackArena
    ) -> UnsafeMutablePointer<Stash__V1__SubtitlesRequest> {
        var message = Stash__V1__SubtitlesRequest()
        stash__v1__subtitles_request__init(&message)
        message.id = arena.cString(id)
        message.n_languages = languages.count
        message.languages = arena.array(languages) { Optional(arena.cString($0)) }
        message.n_text_tracks = textTracks.count
        message.text_tracks = arena.array(textTracks) { Optional($0.wire(in: arena)) }
        return arena.store(message)
    }

    private static func subtitles(
        _ message: UnsafeMutablePointer<Stash__V1__SubtitlesRequest>?, field: StaticString
    ) throws -> (id: String, languages: [String], textTracks: [TextTrack]) {
        let m = try WireValue.message(message, field: field).pointee
        return (
            try WireValue.string(m.id, field: "SubtitlesRequest.id"),
            try WireValue.elements(m.languages, count: m.n_languages) { try WireValue.string($0, field: "SubtitlesRequest.languages") },
            try WireValue.elements(m.text_tracks, count: m.n_text_tracks) { try TextTrack(wire: $0) })
    }

    private static func emptyRequest(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__EmptyRequest> {
        var message = Stash__V1__EmptyRequest()
        stash__v1__empty_request__init(&message)
        return arena.store(message)
    }

    /// The operation of a Request. No op set, which is also how protobuf-c reads an op number
    /// from a newer client, is `.unknown`.
    init(wire request: UnsafePointer<Stash__V1__Request>) throws {
        let r = request.pointee
        switch r.op_case {
        case STASH__V1__REQUEST__OP_HELLO:
            let m = try WireValue.message(r.hello, field: "Request.hello").pointee
            self = .hello(HelloRequest(
                protocolVersion: Int(m.protocol_version),
                clientName: try WireValue.string(m.client_name, field: "HelloRequest.client_name")))
        case STASH__V1__REQUEST__OP_ADD_DOWNLOAD:
            let m = try WireValue.message(r.add_download, field: "Request.add_download").pointee
            var add = AddDownloadRequest(
                id: try WireValue.string(m.id, field: "AddDownloadRequest.id"),
                uri: try WireValue.string(m.uri, field: "AddDownloadRequest.uri"),
                title: try WireValue.string(m.title, field: "AddDownloadRequest.title"),
                sha256: try WireValue.string(m.sha256, field: "AddDownloadRequest.sha256"),
                headers: try WireValue.elements(m.headers, count: m.n_headers) { try HTTPHeader(wire: $0) },
                files: try WireValue.elements(m.files, count: m.n_files) { try BundleFileSpec(wire: $0) },
                hls: try m.hls.map { try HLSOptions(wire: $0) },
                drm: try m.drm.flatMap { try DRMParams.decode(wire: $0) },
                force: m.force != 0,
                appData: try WireValue.bytes(m.app_data, field: "AddDownloadRequest.app_data"),
                group: try WireValue.string(m.group, field: "AddDownloadRequest.group"),
                append: WireValue.bool(m.append),
                textTracks: try WireValue.elements(m.text_tracks, count: m.n_text_tracks) { try TextTrack(wire: $0) },
                priority: try DownloadPriority(wire: m.priority, field: "AddDownloadRequest.priority"))
            add.rateLimit = try WireValue.int64(m.rate_limit, field: "AddDownloadRequest.rate_limit")
            add.expect = try WireValue.string(m.expect, field: "AddDownloadRequest.expect")
            add.minSize = try WireValue.int64(m.min_size, field: "AddDownloadRequest.min_size")
            add.replace = WireValue.bool(m.replace)
            add.network = try NetworkRequirement(wire: m.network, field: "AddDownloadRequest.network")
            add.onBattery = try BatteryPolicy(wire: m.on_battery, field: "AddDownloadRequest.on_battery")
            self = .addDownload(add)
        case STASH__V1__REQUEST__OP_GET_DOWNLOAD:
            self = .getDownload(id: try Self.id(r.get_download, field: "Request.get_download"))
        case STASH__V1__REQUEST__OP_LIST_DOWNLOADS:
            let m = try WireValue.message(r.list_downloads, field: "Request.list_downloads").pointee
            self = .listDownloads(ListDownloadsRequest(
                states: try WireValue.elements(m.states, count: m.n_states) {
                    try DownloadState(wire: $0, field: "ListDownloadsRequest.states")
                },
                pageSize: Int(m.page_size),
                pageToken: try WireValue.string(m.page_token, field: "ListDownloadsRequest.page_token"),
                group: try WireValue.string(m.group, field: "ListDownloadsRequest.group")))
        case STASH__V1__REQUEST__OP_HAS_DOWNLOAD:
            self = .hasDownload(id: try Self.id(r.has_download, field: "Request.has_download"))
        case STASH__V1__REQUEST__OP_PAUSE:
            self = .pause(id: try Self.id(r.pause, field: "Request.pause"))
        case STASH__V1__REQUEST__OP_RESUME:
            self = .resume(id: try Self.id(r.resume, field: "Request.resume"))
        case STASH__V1__REQUEST__OP_CANCEL:
            self = .cancel(id: try Self.id(r.cancel, field: "Request.cancel"))
        case STASH__V1__REQUEST__OP_PAUSE_ALL:
            self = .pauseAll
        case STASH__V1__REQUEST__OP_RESUME_ALL:
            self = .resumeAll
        case STASH__V1__REQUEST__OP_CANCEL_ALL:
            self = .cancelAll
        case STASH__V1__REQUEST__OP_SUBSCRIBE:
            let m = try WireValue.message(r.subscribe, field: "Request.subscribe").pointee
            self = .subscribe(SubscribeRequest(
                ids: try WireValue.elements(m.ids, count: m.n_ids) { try WireValue.string($0, field: "SubscribeRequest.ids") },
                minProgressStep: Int(m.min_progress_step),
                minIntervalMs: Int(m.min_interval_ms),
                replayFromSeq: m.replay_from_seq,
                states: try WireValue.elements(m.states, count: m.n_states) { try DownloadState(wire: $0, field: "SubscribeRequest.states") }))
        case STASH__V1__REQUEST__OP_GET_STATS:
            self = .getStats
        case STASH__V1__REQUEST__OP_GET_SYSTEM_INFO:
            self = .getSystemInfo
        case STASH__V1__REQUEST__OP_GET_CONFIG:
            self = .getConfig
        case STASH__V1__REQUEST__OP_SET_CONFIG:
            let m = try WireValue.message(r.set_config, field: "Request.set_config").pointee
            self = .setConfig(try WireValue.elements(m.entries, count: m.n_entries) {
                let entry = try WireValue.message($0, field: "SetConfigRequest.entries").pointee
                return ConfigEntry(
                    key: try WireValue.string(entry.key, field: "ConfigEntry.key"),
                    value: try WireValue.string(entry.value, field: "ConfigEntry.value"))
            })
        case STASH__V1__REQUEST__OP_VERIFY:
            let m = try WireValue.message(r.verify, field: "Request.verify").pointee
            self = .verify(VerifyRequest(deep: WireValue.bool(m.deep), repair: WireValue.bool(m.repair), dryRun: WireValue.bool(m.dry_run)))
        case STASH__V1__REQUEST__OP_PURGE:
            self = .purge
        case STASH__V1__REQUEST__OP_GET_MANIFEST_INFO:
            let m = try WireValue.message(r.get_manifest_info, field: "Request.get_manifest_info").pointee
            self = .getManifestInfo(
                uri: try WireValue.string(m.uri, field: "GetManifestInfoRequest.uri"),
                headers: try WireValue.elements(m.headers, count: m.n_headers) { try HTTPHeader(wire: $0) },
                start: m.start_given_case == STASH__V1__GET_MANIFEST_INFO_REQUEST__START_GIVEN_START ? m.start : nil,
                end: m.end_given_case == STASH__V1__GET_MANIFEST_INFO_REQUEST__END_GIVEN_END ? m.end : nil)
        case STASH__V1__REQUEST__OP_EXPORT:
            let m = try WireValue.message(r.export, field: "Request.export").pointee
            self = .export(ExportRequest(
                id: try WireValue.string(m.id, field: "ExportRequest.id"),
                dir: try WireValue.string(m.dir, field: "ExportRequest.dir"),
                decrypt: WireValue.bool(m.decrypt),
                file: try WireValue.string(m.file, field: "ExportRequest.file"),
                format: try ExportFormat.read(wire: m.format, field: "ExportRequest.format"),
                force: WireValue.bool(m.force), link: WireValue.bool(m.link)))
        case STASH__V1__REQUEST__OP_ADD_SUBTITLES:
            let (id, languages, textTracks) = try Self.subtitles(r.add_subtitles, field: "Request.add_subtitles")
            self = .addSubtitles(id: id, languages: languages, textTracks: textTracks)
        case STASH__V1__REQUEST__OP_REMOVE_SUBTITLES:
            let (id, languages, textTracks) = try Self.subtitles(r.remove_subtitles, field: "Request.remove_subtitles")
            // Refused rather than ignored: a client that sends them expects them removed.
            guard textTracks.isEmpty else {
                throw StashError.invalidArgument("SubtitlesRequest.text_tracks: RemoveSubtitles takes languages; a text track is removed by its language or its file name (es-2)")
            }
            self = .removeSubtitles(id: id, languages: languages)
        case STASH__V1__REQUEST__OP_GET_SUBTITLES:
            self = .getSubtitles(id: try Self.id(r.get_subtitles, field: "Request.get_subtitles"))
        case STASH__V1__REQUEST__OP_DOWNLOAD_LICENSE:
            self = .downloadLicense(id: try Self.id(r.download_license, field: "Request.download_license"))
        case STASH__V1__REQUEST__OP_CHECK_LICENSE:
            self = .checkLicense(id: try Self.id(r.check_license, field: "Request.check_license"))
        case STASH__V1__REQUEST__OP_RENEW_LICENSE:
            self = .renewLicense(id: try Self.id(r.renew_license, field: "Request.renew_license"))
        case STASH__V1__REQUEST__OP_RELEASE_LICENSE:
            self = .releaseLicense(id: try Self.id(r.release_license, field: "Request.release_license"))
        case STASH__V1__REQUEST__OP_RELEASE_ALL_LICENSES:
            self = .releaseAllLicenses
        case STASH__V1__REQUEST__OP_GET_PLAYBACK_KEY:
            let m = try WireValue.message(r.get_playback_key, field: "Request.get_playback_key").pointee
            self = .getPlaybackKey(
                id: try WireValue.string(m.id, field: "PlaybackKeyRequest.id"),
                keyID: try WireValue.string(m.key_id, field: "PlaybackKeyRequest.key_id"))
        case STASH__V1__REQUEST__OP_STOP:
            let m = try WireValue.message(r.stop, field: "Request.stop").pointee
            self = .stop(
                id: try WireValue.string(m.id, field: "StopRequest.id"),
                reason: try WireValue.string(m.reason, field: "StopRequest.reason"))
        case STASH__V1__REQUEST__OP_FORGET:
            let m = try WireValue.message(r.forget, field: "Request.forget").pointee
            self = .forget(
                id: try WireValue.string(m.id, field: "ForgetRequest.id"),
                moveTo: try WireValue.string(m.move_to, field: "ForgetRequest.move_to"))
        case STASH__V1__REQUEST__OP_ADOPT:
            let m = try WireValue.message(r.adopt, field: "Request.adopt").pointee
            self = .adopt(AdoptRequest(
                path: try WireValue.string(m.path, field: "AdoptRequest.path"),
                id: try WireValue.string(m.id, field: "AdoptRequest.id"),
                url: try WireValue.string(m.url, field: "AdoptRequest.url"),
                sha256: try WireValue.string(m.sha256, field: "AdoptRequest.sha256"),
                link: m.link != 0))
        case STASH__V1__REQUEST__OP_PAUSE_GROUP:
            self = .pauseGroup(try GroupRequest(wire: r.pause_group, field: "Request.pause_group"))
        case STASH__V1__REQUEST__OP_RESUME_GROUP:
            self = .resumeGroup(try GroupRequest(wire: r.resume_group, field: "Request.resume_group"))
        case STASH__V1__REQUEST__OP_CANCEL_GROUP:
            self = .cancelGroup(try GroupRequest(wire: r.cancel_group, field: "Request.cancel_group"))
        case STASH__V1__REQUEST__OP_SET_DOWNLOAD:
            self = .setDownload(try DownloadChanges(wire: r.set_download, field: "Request.set_download"))
        case STASH__V1__REQUEST__OP_MOVE:
            let (id, move) = try QueueMove.decode(wire: r.move, field: "Request.move")
            self = .move(id: id, move)
        default:
            self = .unknown
        }
    }

    private static func id(_ message: UnsafeMutablePointer<Stash__V1__IdRequest>?, field: StaticString) throws -> String {
        try WireValue.string(try WireValue.message(message, field: field).pointee.id, field: "IdRequest.id")
    }
}
