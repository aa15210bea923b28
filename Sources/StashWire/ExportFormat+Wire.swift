import CStashProto
import StashCore

extension ExportFormat {
    /// `EXPORT_FORMAT_UNSPECIFIED` for nil (the extension decides, or not a file).
    static func wire(_ format: ExportFormat?) -> Stash__V1__ExportFormat {
        switch format {
        case nil: return STASH__V1__EXPORT_FORMAT__EXPORT_FORMAT_UNSPECIFIED
        case .mp4?: return STASH__V1__EXPORT_FORMAT__EXPORT_FORMAT_MP4
        case .mkv?: return STASH__V1__EXPORT_FORMAT__EXPORT_FORMAT_MKV
        }
    }

    /// Nil for unspecified; a number this version does not know is refused, naming the field.
    static func read(wire: Stash__V1__ExportFormat, field: StaticString) throws -> ExportFormat? {
        let raw = Int32(truncatingIfNeeded: wire.rawValue)
        switch raw {
        case 0: return nil
        case 1: return .mp4
        case 2: return .mkv
        default:
            throw StashError.invalidArgument("\(field): unknown ExportFormat value \(raw); known values are 0 (from the extension), 1 (mp4), 2 (mkv)")
        }
    }
}

extension ExportTrack {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__ExportTrack> {
        var message = Stash__V1__ExportTrack()
        stash__v1__export_track__init(&message)
        switch kind {
        case .video: message.kind = STASH__V1__EXPORT_TRACK_KIND__EXPORT_TRACK_VIDEO
        case .audio: message.kind = STASH__V1__EXPORT_TRACK_KIND__EXPORT_TRACK_AUDIO
        case .subtitles: message.kind = STASH__V1__EXPORT_TRACK_KIND__EXPORT_TRACK_SUBTITLES
        }
        message.language = arena.cString(language)
        message.codec = arena.cString(codec)
        message.title = arena.cString(title)
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__ExportTrack>) throws {
        let m = message.pointee
        let raw = Int32(truncatingIfNeeded: m.kind.rawValue)
        let kind: Kind
        switch raw {
        case 1: kind = .video
        case 2: kind = .audio
        case 3: kind = .subtitles
        default: throw StashError.invalidArgument("ExportTrack.kind: unknown ExportTrackKind value \(raw); known values are 1...3")
        }
        self.init(
            kind: kind, language: try WireValue.string(m.language, field: "ExportTrack.language"),
            codec: try WireValue.string(m.codec, field: "ExportTrack.codec"), title: try WireValue.string(m.title, field: "ExportTrack.title"))
    }
}

extension ExportProgress {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__ExportProgress> {
        var message = Stash__V1__ExportProgress()
        stash__v1__export_progress__init(&message)
        message.id = arena.cString(id)
        message.file = arena.cString(file)
        message.bytes_done = UInt64(clamping: bytesDone)
        message.bytes_total = UInt64(clamping: bytesTotal)
        message.progress = UInt32(clamping: progressPercent)
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__ExportProgress>) throws {
        let m = message.pointee
        let done = try WireValue.int64(m.bytes_done, field: "ExportProgress.bytes_done")
        let total = try WireValue.int64(m.bytes_total, field: "ExportProgress.bytes_total")
        guard done <= total else {
            throw StashError.invalidArgument("ExportProgress.bytes_done: value \(done) is above ExportProgress.bytes_total \(total)")
        }
        self.init(
            id: try WireValue.string(m.id, field: "ExportProgress.id"), file: try WireValue.string(m.file, field: "ExportProgress.file"),
            bytesDone: done, bytesTotal: total, progressPercent: try WireValue.percent(m.progress, field: "ExportProgress.progress"))
    }
}
