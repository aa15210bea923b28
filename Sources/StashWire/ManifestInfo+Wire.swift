import CStashProto
import StashCore

extension ManifestInfo {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__ManifestInfoResult> {
        var message = Stash__V1__ManifestInfoResult()
        stash__v1__manifest_info_result__init(&message)
        message.n_variants = variants.count
        message.variants = arena.array(variants) { Optional($0.wire(in: arena)) }
        message.n_audio = audio.count
        message.audio = arena.array(audio) { Optional($0.wire(in: arena)) }
        message.n_subtitles = subtitles.count
        message.subtitles = arena.array(subtitles) { Optional($0.wire(in: arena)) }
        message.duration = duration
        message.n_warnings = warnings.count
        message.warnings = arena.array(warnings) { Optional(arena.cString($0)) }
        if let start {
            message.start_given_case = STASH__V1__MANIFEST_INFO_RESULT__START_GIVEN_START
            message.start = start
        }
        if let end {
            message.end_given_case = STASH__V1__MANIFEST_INFO_RESULT__END_GIVEN_END
            message.end = end
        }
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__ManifestInfoResult>) throws {
        let m = message.pointee
        self.init(
            variants: try WireValue.elements(m.variants, count: m.n_variants) {
                try VariantInfo(wire: try WireValue.message($0, field: "ManifestInfoResult.variants"))
            },
            audio: try WireValue.elements(m.audio, count: m.n_audio) {
                try RenditionInfo(wire: try WireValue.message($0, field: "ManifestInfoResult.audio"))
            },
            subtitles: try WireValue.elements(m.subtitles, count: m.n_subtitles) {
                try RenditionInfo(wire: try WireValue.message($0, field: "ManifestInfoResult.subtitles"))
            },
            duration: m.duration,
            warnings: try WireValue.elements(m.warnings, count: m.n_warnings) { try WireValue.string($0, field: "ManifestInfoResult.warnings") },
            start: m.start_given_case == STASH__V1__MANIFEST_INFO_RESULT__START_GIVEN_START ? m.start : nil,
            end: m.end_given_case == STASH__V1__MANIFEST_INFO_RESULT__END_GIVEN_END ? m.end : nil)
    }
}

extension ManifestInfo.VariantInfo {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__VariantInfo> {
        var message = Stash__V1__VariantInfo()
        stash__v1__variant_info__init(&message)
        message.uri = arena.cString(uri)
        message.bandwidth = bandwidth ?? 0
        message.average_bandwidth = averageBandwidth ?? 0
        message.width = UInt32(clamping: width ?? 0)
        message.height = UInt32(clamping: height ?? 0)
        message.n_codecs = codecs.count
        message.codecs = arena.array(codecs) { Optional(arena.cString($0)) }
        message.frame_rate = frameRate ?? 0
        message.n_encryption = encryption.count
        message.encryption = arena.array(encryption) { Optional(arena.cString($0)) }
        message.estimated_bytes = UInt64(clamping: estimatedBytes)
        message.size_is_exact = WireValue.bool(sizeIsExact)
        message.duration = duration
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__VariantInfo>) throws {
        let m = message.pointee
        self.init(
            uri: try WireValue.string(m.uri, field: "VariantInfo.uri"),
            bandwidth: m.bandwidth == 0 ? nil : m.bandwidth,
            averageBandwidth: m.average_bandwidth == 0 ? nil : m.average_bandwidth,
            width: m.width == 0 ? nil : Int(m.width),
            height: m.height == 0 ? nil : Int(m.height),
            codecs: try WireValue.elements(m.codecs, count: m.n_codecs) { try WireValue.string($0, field: "VariantInfo.codecs") },
            frameRate: m.frame_rate == 0 ? nil : m.frame_rate,
            encryption: try WireValue.elements(m.encryption, count: m.n_encryption) { try WireValue.string($0, field: "VariantInfo.encryption") },
            estimatedBytes: try WireValue.int64(m.estimated_bytes, field: "VariantInfo.estimated_bytes"),
            sizeIsExact: WireValue.bool(m.size_is_exact),
            duration: m.duration)
    }
}

extension ManifestInfo.RenditionInfo {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__RenditionInfo> {
        var message = Stash__V1__RenditionInfo()
        stash__v1__rendition_info__init(&message)
        message.group_id = arena.cString(groupID)
        message.language = arena.cString(language)
        message.name = arena.cString(name)
        message.default_ = WireValue.bool(isDefault)
        message.forced = WireValue.bool(forced)
        message.uri = arena.cString(uri)
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__RenditionInfo>) throws {
        let m = message.pointee
        self.init(
            groupID: try WireValue.string(m.group_id, field: "RenditionInfo.group_id"),
            language: try WireValue.string(m.language, field: "RenditionInfo.language"),
            name: try WireValue.string(m.name, field: "RenditionInfo.name"),
            isDefault: WireValue.bool(m.default_),
            forced: WireValue.bool(m.forced),
            uri: try WireValue.string(m.uri, field: "RenditionInfo.uri"))
    }
}

extension ExportResult {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__ExportResult> {
        var message = Stash__V1__ExportResult()
        stash__v1__export_result__init(&message)
        message.dir = arena.cString(dir)
        message.files = UInt32(clamping: files)
        message.bytes = UInt64(clamping: bytes)
        message.decrypted = WireValue.bool(decrypted)
        message.file = arena.cString(file)
        message.format = ExportFormat.wire(format)
        message.n_tracks = tracks.count
        message.tracks = arena.array(tracks) { Optional($0.wire(in: arena)) }
        message.linked = WireValue.bool(linked)
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__ExportResult>) throws {
        let m = message.pointee
        self.init(
            dir: try WireValue.string(m.dir, field: "ExportResult.dir"),
            files: Int(m.files),
            bytes: try WireValue.int64(m.bytes, field: "ExportResult.bytes"),
            decrypted: WireValue.bool(m.decrypted),
            file: try WireValue.string(m.file, field: "ExportResult.file"),
            format: try ExportFormat.read(wire: m.format, field: "ExportResult.format"),
            tracks: try WireValue.elements(m.tracks, count: m.n_tracks) { try ExportTrack(wire: try WireValue.message($0, field: "ExportResult.tracks")) },
            linked: WireValue.bool(m.linked))
    }
}
