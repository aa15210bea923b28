import Logging
import StashCore

/// Adds: whether an add is a new download, one already there (the same id and content asked
/// again) or content another download holds (`EngineState+Dedupe`).
extension EngineState {
    enum AddDecision: Equatable {
        /// A new download: entered and committed by `.add`, queued by `.added`.
        case create(Download)
        /// The same id with the same content: the download as it is, not created again.
        case existing(Download)
        /// Another download holds the content: it is the answer once its own add is durable
        /// (`heldContent`).
        case heldBy(String)
        /// An add with replace of what this download holds: fetched again beside it.
        case replace(String)
    }

    /// Decides an add. With an id that exists, the same content returns the existing record;
    /// anything else is ALREADY_EXISTS. Content another download holds returns that download
    /// when no id is given, and is ALREADY_EXISTS with one, unless `force`. The download found
    /// by id or content must hold the add's text tracks too: adding them to it is the client's
    /// call, not a side effect of an add.
    ///
    /// `mutating` though it changes nothing: called on the engine actor's state, a
    /// non-mutating method got a copy of the whole state (every table retained and released)
    /// at each add.
    mutating func decideAdd(_ new: NewDownload, using generator: inout some RandomNumberGenerator) throws -> AddDecision {
        if new.replace, let target = try replaceTarget(new) { return .replace(target) }
        if !new.force, let holder = holder(ofContent: new.contentKey, hls: new.hls, drm: new.drm), holder.id != new.id,
            new.id.isEmpty || entries[new.id] == nil
        {
            guard new.id.isEmpty else {
                throw StashError(
                    .alreadyExists, "download '\(holder.id)' already holds \(new.described); add with force to fetch it again as '\(new.id)'")
            }
            if let lacking = new.tracksLacking(in: holder) {
                throw StashError(
                    .alreadyExists,
                    "download '\(holder.id)' already holds \(new.described), without the text track(s) \(lacking); add them to it with AddSubtitles (stash subtitles add \(holder.id) --text-track ...), or add with force"
                )
            }
            return .heldBy(holder.id)
        }
        if new.id.isEmpty { return .create(try new.record(id: freeID(using: &generator), layout: layout, createdAt: clock.now())) }
        guard let existing = entries[new.id]?.download else {
            return .create(try new.record(id: new.id, layout: layout, createdAt: clock.now()))
        }
        guard new.isSameContent(as: existing) else {
            let what =
                existing.isBundle ? "a bundle of \(existing.contentFiles.count) other files"
                : existing.hls != nil ? "HLS uri '\(existing.uri)' and its choice of renditions" : "uri '\(existing.uri)'"
            throw StashError(.alreadyExists, "download '\(new.id)' already exists with \(what); use another id or cancel it first")
        }
        if let lacking = new.tracksLacking(in: existing) {
            throw StashError(
                .alreadyExists,
                "download '\(new.id)' already exists without the text track(s) \(lacking); add them with AddSubtitles (stash subtitles add \(new.id) --text-track ...)"
            )
        }
        return .existing(existing)
    }

    /// The download an add with replace renews: the one with its id (which must hold the same
    /// content: a new URL is `set --uri`'s), else the one holding its content; nil when there
    /// is none and the add makes a new download.
    private func replaceTarget(_ new: NewDownload) throws -> String? {
        if !new.id.isEmpty, let existing = entries[new.id]?.download {
            guard new.isSameContent(as: existing) else {
                throw StashError(
                    .alreadyExists,
                    "replace: download '\(new.id)' holds uri '\(existing.uri.prefix(200))', not \(new.described); replace fetches the same content again")
            }
            return new.id
        }
        guard new.id.isEmpty else { return nil }
        return holder(ofContent: new.contentKey, hls: new.hls, drm: new.drm)?.id
    }

    /// The download that held an add's content, once the add waited for it; nil when its own
    /// add failed or it was cancelled meanwhile (the add then stands on its own).
    func heldContent(_ id: String) -> Download? {
        guard let download = entries[id]?.download, download.state != .removing else { return nil }
        return download
    }

    /// Adopt looks at the id before its file work, which lets the engine serve an add of the
    /// same id meanwhile: the id is checked again as the download enters.
    func checkNew(_ id: String) throws {
        guard entries[id] == nil else { throw StashError(.alreadyExists, "download '\(id)' already exists; use another id") }
    }

    /// The journal's line for an add, once it is durable.
    func noteAdded(_ id: String, into effects: inout [EngineEffect]) {
        guard let download = entries[id]?.download else { return }
        log(.info, "download added", [
            "id": .string(id), "uri": .string(download.uri.withoutURLSecrets), "files": .string(String(download.files.count)),
            "hls": .string(String(download.hls != nil)), "drm": .string(String(download.hasDRM)),
        ], into: &effects)
    }

    /// A generated id no download has.
    private func freeID(using generator: inout some RandomNumberGenerator) -> String {
        while true {
            let id = GeneratedID.make(at: clock.now(), using: &generator)
            if entries[id] == nil { return id }
        }
    }
}
