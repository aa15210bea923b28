import Foundation
import StashCore
import StashDASH
import StashFetch
import StashHLS
import StashKeys

/// Reads an HLS download's playlists and turns them into its offline package: chooses the
/// renditions, seals the AES-128 keys, writes the local playlists, and lists the segments as
/// the download's files. Runs off the engine; the engine only takes the result.
struct HLSPreparation: Sendable {
    let fetch: any FetchService
    let keys: KeyStore
    let licenses: LicenseClient
    let retry: RetryPolicy
    let lowSpeedLimit: Int
    let lowSpeedTime: Int
    /// When a licence acquired while planning counts from.
    let clock: WallClock
    /// Told when a playlist or key request waits for the network (the engine shows it).
    var waitingForNetwork: (@Sendable () -> Void)?
    /// Set for a download's planning, which holds a download slot: a request whose attempt
    /// failed and may be tried again ends the planning with `FetchRetryLater`, and the engine
    /// waits out the backoff with the slot given up. Its attempts count on from
    /// `attemptsBefore`, the planning's earlier ones. A plan (`stash plan`) retries inside.
    var retriesOutside = false
    var attemptsBefore = 0

    /// A key file is 16 bytes; anything much larger is not a key and is not held.
    static let maxKeyBytes = 4096
    /// Media playlists fetched at once while planning.
    static let playlistConcurrency = 8
    /// Variants whose media playlists GetManifestInfo reads; a master with more is summarised
    /// from its attributes alone past this.
    static let maxVariantsRead = 64
    /// Media playlists GetManifestInfo reads at once. One: a playlist of 8.5 MB (100,000
    /// segments) takes about 80 MB while it is parsed, and a plan must stay far below the
    /// daemon's 200 MB bound; the byte budget keeps the time this costs to a few seconds.
    static let manifestConcurrency = 1
    /// Bytes of media playlists GetManifestInfo reads before it estimates the remaining
    /// variants from the master alone: a plan answers in seconds even for 64 huge variants.
    static let manifestByteBudget = 64 * 1024 * 1024

    /// What planning produced, for the engine to apply.
    struct Prepared: Sendable {
        var files: [DownloadFile]
        var keyPaths: [String]
        var playlistPaths: [String]
        var quality: String
        var hasSubtitles: Bool
        var estimatedBytes: Int64?
        /// Key path to base64url key id, for the keys that came from the licence server.
        var licenseKeyIDs: [String: String]
        /// The licence acquired while planning; nil when the one held already covers the keys.
        var license: LicenseTerms?
        /// What the playlists needed filled in or had ignored (as a plan shows them), for the log.
        var warnings: [String] = []
        /// The time range kept, resolved against the stream; nil for the whole stream.
        var window: SegmentWindow?
        /// What the range changed (an end clamped, a rendition left out), for the log.
        var windowNotes: [String] = []
    }

    /// The licence a download holds when it is planned (again), so its keys are not asked for twice.
    struct HeldLicense: Sendable {
        var drm: DRMParams?
        var terms: LicenseTerms?
    }

    /// The playlists of a stream: the master (nil when `uri` is a media playlist) and the
    /// media playlists of `wanted` (all variants' when nil), by the URI the master names them with.
    struct Playlists: Sendable {
        var master: MasterPlaylist?
        var media: [String: MediaPlaylist]
    }

    /// Reads the playlist at `uri` and chooses by `options`: the selection (nil for a media
    /// playlist, which is the only choice), the media playlist when `uri` is one, and the
    /// master's warnings.
    func choose(uri: String, headers: [HTTPHeader], options: HLSOptions) async throws
        -> (selection: RenditionSelection?, media: MediaPlaylist?, warnings: [String])
    {
        switch try await playlist(uri, headers: headers, what: "playlist") {
        case .master(let master):
            do {
                return (try master.select(options), nil, master.warnings)
            } catch let error as HLSError {
                throw DownloadError(.validation, "\(uri): \(error.message)")
            }
        case .media(let playlist):
            return (nil, playlist, [])
        }
    }

    /// Reads the playlists and lays out the package, writing nothing.
    func plan(uri: String, headers: [HTTPHeader], options: HLSOptions) async throws
        -> (plan: PackagePlan, selection: RenditionSelection?, warnings: [String])
    {
        let (selection, single, masterWarnings) = try await choose(uri: uri, headers: headers, options: options)
        var media: [String: MediaPlaylist] = [:]
        if let selection {
            let wanted = [selection.variant.uri] + selection.audio.compactMap(\.uri) + selection.subtitles.compactMap(\.uri)
            media = try await mediaPlaylists(wanted, headers: headers)
        } else if let single {
            media[uri] = single
        }
        // Each playlist keeps at most PlaylistWarnings.perPlaylist; the whole at most perPlan.
        let mediaWarnings = media.sorted { $0.key < $1.key }.flatMap { uri, playlist in playlist.warnings.map { uri + ": " + $0 } }
        let warnings = Array((masterWarnings + mediaWarnings).prefix(PlaylistWarnings.perPlan))
        do {
            return (try PackagePlan.make(masterURI: uri, selection: selection, media: media, start: options.start, end: options.end),
                    selection, warnings)
        } catch let error as HLSError {
            throw DownloadError(.validation, error.message)
        }
    }

    /// `keyPrefix`: put before each key's id in the store (a replace's new copy seals its keys
    /// beside the old copy's, `ReplacementKeys`).
    func prepare(id: String, uri: String, headers: [HTTPHeader], options: HLSOptions, folder: String,
                 held: HeldLicense = HeldLicense(), keyPrefix: String = "") async throws -> Prepared {
        let (plan, selection, warnings): (PackagePlan, RenditionSelection?, [String])
        do {
            (plan, selection, warnings) = try await self.plan(uri: uri, headers: headers, options: options)
        } catch let found as FoundMPD {
            return try await DASHPreparation(hls: self).prepare(
                id: id, body: found.body, uri: uri, headers: headers, options: options, folder: folder, held: held, keyPrefix: keyPrefix)
        }
        try Task.checkCancellation()
        let (plain, licensed) = try Self.sortKeys(plan.keys, drm: held.drm)
        try await sealKeys(plain, asset: id, keyPrefix: keyPrefix, headers: headers)
        var license: LicenseTerms?
        if let drm = held.drm, !licensed.isEmpty {
            license = try await acquire(licensed, asset: id, drm: drm, held: held.terms, keyPrefix: keyPrefix)
        }
        try Task.checkCancellation()
        for playlist in plan.playlists {
            try DurableFile.write(Array(playlist.text.utf8), folder: folder, relativePath: playlist.path)
        }
        let files = plan.files.map { file in
            DownloadFile.segment(
                url: file.url, path: file.path, size: file.size, rangeOffset: file.byteRange.map { Int64(clamping: $0.offset) },
                container: file.container, in: folder)
        }
        return Prepared(
            files: files, keyPaths: plan.keys.map(\.path), playlistPaths: plan.playlists.map(\.path),
            quality: selection.map { Self.describe($0.variant) } ?? "",
            // A subtitle rendition with nothing in a time range is not in the package.
            hasSubtitles: plan.playlists.contains { $0.path.hasPrefix("subtitles/") }, estimatedBytes: plan.estimatedBytes,
            licenseKeyIDs: Self.licenseKeyIDs(licensed), license: license, warnings: warnings, window: plan.window,
            windowNotes: plan.windowNotes)
    }

    /// Splits a package's keys into those fetched from their URI and those a licence server
    /// gives (an `skd://` URI, or any key with an id when the download has DRM parameters).
    static func sortKeys(_ keys: [PackageKey], drm: DRMParams?) throws -> (plain: [PackageKey], licensed: [PackageKey]) {
        var plain: [PackageKey] = []
        var licensed: [PackageKey] = []
        for key in keys {
            if key.isSKD || (drm != nil && key.licenseKeyID != nil) {
                guard drm != nil else {
                    throw LicenseFailure.invalid("the stream's key \(key.uri.prefix(200)) comes from a licence server; add the download with DRM parameters (stash add URL --drm-type clearkey --license-server URL)")
                }
                licensed.append(key)
            } else if drm != nil {
                throw LicenseFailure.invalid("the download has DRM type clearkey, but the key at \(key.uri.prefix(200)) has no key id (an skd://KEYID URI or a KEYID attribute), so the licence server cannot be asked for it")
            } else {
                plain.append(key)
            }
        }
        return (plain, licensed)
    }

    static func licenseKeyIDs(_ keys: [PackageKey]) -> [String: String] {
        var ids: [String: String] = [:]
        for key in keys { if let kid = key.licenseKeyID { ids[key.path] = Base64URL.encode(kid) } }
        return ids
    }

    /// Asks the licence server for the keys of `licensed` and seals them, unless the licence
    /// held covers them all and they are in the store. Returns the new licence, or nil.
    /// `keyPrefix`: put before each key's id in the store, as for the stream's other keys.
    func acquire(_ licensed: [PackageKey], asset: String, drm: DRMParams, held: LicenseTerms?, keyPrefix: String = "") async throws -> LicenseTerms? {
        var kids: [[UInt8]] = []
        for key in licensed { if let kid = key.licenseKeyID, !kids.contains(kid) { kids.append(kid) } }
        let names = kids.map(Base64URL.encode)
        if let held, Set(names).isSubset(of: held.kids),
           names.allSatisfy({ keys.exists(asset: asset, keyID: Download.licenseKeyStoreID($0)) }) {
            return nil
        }
        var licensing = licenses
        licensing.retriesOutside = retriesOutside
        licensing.attemptsBefore = attemptsBefore
        let answer = try await licensing.keys(.acquire, kids: kids, drm: drm, waitingForNetwork: waitingForNetwork)
        try sealLicenseKeys(answer, asset: asset, keyPrefix: keyPrefix)
        return LicenseTerms(acquiredAt: clock.now(), expiresIn: answer.expiresIn, playbackDuration: answer.playbackDuration.map(TimeInterval.init),
                            kids: names)
    }

    func sealLicenseKeys(_ answer: LicenseResponse, asset: String, keyPrefix: String = "") throws {
        for (kid, key) in answer.keys {
            do {
                try keys.write(asset: asset, keyID: keyPrefix + Download.licenseKeyStoreID(kid), key: key)
            } catch {
                throw DownloadError(.storage, "cannot store the licence key \(kid): \(error)")
            }
        }
    }

    /// Everything `stash plan` shows: the master and the media playlist of every variant, with
    /// the sizes of a time range's segments when `start` or `end` is given.
    func manifest(uri: String, headers: [HTTPHeader], start: Double? = nil, end: Double? = nil) async throws -> ManifestInfo {
        let summaries: [String: MediaSummary]
        let master: MasterPlaylist?
        let top: Playlist
        do {
            top = try await playlist(uri, headers: headers, what: "playlist")
        } catch let found as FoundMPD {
            return try await DASHPreparation(hls: self).manifest(found.body, uri: uri, headers: headers, start: start, end: end)
        }
        switch top {
        case .master(let read):
            master = read
            let uris = read.variants.prefix(Self.maxVariantsRead).map(\.uri)
            summaries = try await mediaSummaries(uris, headers: headers) { MediaSummary($0, start: start, end: end) }
        case .media(let playlist):
            master = nil
            summaries = [uri: MediaSummary(playlist, start: start, end: end)]
        }
        do {
            return try ManifestInfo(master: master, summaries: summaries, start: start, end: end)
        } catch {
            throw DownloadError(.validation, "\(uri): \(error.message)")
        }
    }

    /// Fetches media playlists, a few at once; a master among them is refused, which also
    /// ends a master that names itself or another master (a loop) after one level.
    private func mediaPlaylists(_ uris: [String], headers: [HTTPHeader]) async throws -> [String: MediaPlaylist] {
        try await readMedia(uris, headers: headers, concurrency: Self.playlistConcurrency, byteBudget: .max) { $0 }
    }

    /// For `stash plan`: summaries of media playlists, read until `manifestByteBudget` bytes
    /// of them were read; the variants past that are left out, and ManifestInfo estimates them
    /// from the master's attributes. Each parsed playlist is dropped as soon as it is
    /// summarised, so memory stays near `manifestConcurrency` playlists whatever the master lists.
    private func mediaSummaries(
        _ uris: [String], headers: [HTTPHeader], _ summary: @escaping @Sendable (MediaPlaylist) -> MediaSummary
    ) async throws -> [String: MediaSummary] {
        try await readMedia(uris, headers: headers, concurrency: Self.manifestConcurrency, byteBudget: Self.manifestByteBudget, summary)
    }

    /// Reads the media playlists at `uris` (each once), `concurrency` at a time, starting no
    /// more once `byteBudget` bytes were read, and keeps `transform` of each.
    private func readMedia<Kept: Sendable>(
        _ uris: [String], headers: [HTTPHeader], concurrency: Int, byteBudget: Int,
        _ transform: @escaping @Sendable (MediaPlaylist) -> Kept
    ) async throws -> [String: Kept] {
        var unique: [String] = []
        for uri in uris where !unique.contains(uri) { unique.append(uri) }
        var result: [String: Kept] = [:]
        var next = 0
        var bytesRead = 0
        try await withThrowingTaskGroup(of: (String, Kept, Int).self) { group in
            func add() {
                guard next < unique.count, bytesRead < byteBudget else { return }
                let uri = unique[next]
                next += 1
                group.addTask {
                    let (playlist, size) = try await self.readPlaylist(uri, headers: headers, what: "media playlist")
                    guard case .media(let media) = playlist else {
                        throw DownloadError(.validation, "\(uri): a master playlist names it as a media playlist, but it is a master playlist itself (a loop or a nested master); stash reads one master and its media playlists")
                    }
                    return (uri, transform(media), size)
                }
            }
            for _ in 0..<concurrency { add() }
            while let (uri, kept, size) = try await group.next() {
                result[uri] = kept
                bytesRead += size // at most maxVariantsRead playlists of 16 MiB each
                add()
            }
        }
        return result
    }

    /// The request for a playlist, a key or an index of at most `limit` bytes.
    func request(_ url: String, headers: [HTTPHeader], limit: Int) -> FetchRequest {
        var request = FetchRequest.inMemory(
            url: url, headers: headers, limit: limit, retry: retry, lowSpeedLimit: lowSpeedLimit, lowSpeedTime: lowSpeedTime)
        request.retriesOutside = retriesOutside
        request.attemptsBefore = attemptsBefore
        return request
    }

    private func playlist(_ uri: String, headers: [HTTPHeader], what: String) async throws -> Playlist {
        try await readPlaylist(uri, headers: headers, what: what).playlist
    }

    /// The parsed playlist and its size in bytes.
    private func readPlaylist(_ uri: String, headers: [HTTPHeader], what: String) async throws -> (playlist: Playlist, bytes: Int) {
        let limit = max(HLSError.maxPlaylistBytes, DASHError.maxMPDBytes)
        let body = try await fetch.fetchBody(request(uri, headers: headers, limit: limit), waitingForNetwork: waitingForNetwork)
        // The download's own URL may name an MPD (by its Content-Type or its first element).
        if what == "playlist", DASHPreparation.looksLikeMPD(body) { throw FoundMPD(body: body) }
        do {
            return (try Playlist.parse(body.bytes, baseURL: body.effectiveURL), body.bytes.count)
        } catch let error as HLSError {
            if (error.code == .missingHeader || error.code == .notUTF8) && !Self.looksLikePlaylist(body.bytes) {
                throw DownloadError(.validation, Self.notAPlaylist(uri, what: what, body: body))
            }
            throw DownloadError(.validation, "\(what) \(uri): \(error.message)")
        }
    }

    /// A video or a web page given where a playlist belongs is refused for what it is, not for
    /// the first rule of RFC 8216 it happens to break (its bytes are rarely UTF-8).
    static func notAPlaylist(_ uri: String, what: String, body: FetchedBody) -> String {
        let subject = what == "playlist" ? uri : "the \(what) \(uri)"
        let sent = "the server sent \(body.bytes.count) bytes" + (body.contentType.isEmpty ? "" : " of \(body.contentType)")
        let firstLine = body.bytes.prefix(256).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).first ?? []
        guard let text = String(validating: firstLine, as: UTF8.self), !text.isEmpty,
              text.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control || $0 == "\t" || $0 == "\r" })
        else {
            return "\(subject) is not a playlist: it does not start with #EXTM3U (\(sent))"
        }
        let shown = text.trimmingCharacters(in: .whitespacesAndNewlines).prefix(60)
        return "\(subject) is not a playlist: its first line is '\(shown)', not #EXTM3U (\(sent))"
    }

    /// Starts with an HLS tag (`#EXTM3U`, or another `#EXT` one when the header is missing),
    /// after the UTF-8 byte-order mark some packagers write: a playlist with a fault, which
    /// the parser's message names, rather than something else.
    private static func looksLikePlaylist(_ bytes: [UInt8]) -> Bool {
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        return body.starts(with: Array("#EXT".utf8))
    }

    /// Fetches each key once and seals it under every path a playlist names it at. The key
    /// bytes go from memory to the sealed store; they are never written in the clear.
    private func sealKeys(_ planned: [PackageKey], asset: String, keyPrefix: String, headers: [HTTPHeader]) async throws {
        var fetched: [String: [UInt8]] = [:]
        for key in planned {
            let bytes: [UInt8]
            if let known = fetched[key.uri] {
                bytes = known
            } else {
                let body = try await fetch.fetchBody(request(key.uri, headers: headers, limit: Self.maxKeyBytes), waitingForNetwork: waitingForNetwork)
                guard body.bytes.count == SegmentCipher.blockSize else {
                    throw DownloadError(.validation, "the AES-128 key at \(key.uri) is \(body.bytes.count) bytes; an AES-128 key is exactly 16")
                }
                fetched[key.uri] = body.bytes
                bytes = body.bytes
            }
            do {
                try keys.write(asset: asset, keyID: keyPrefix + key.path, key: bytes)
            } catch {
                throw DownloadError(.storage, "cannot store the key for \(key.path): \(error)")
            }
        }
    }

    /// "1280x720, 3.2 Mb/s": what the record's `quality` says was chosen.
    static func describe(_ variant: Variant) -> String {
        let rate = variant.bandwidth.map { String(format: "%.1f Mb/s", Double($0) / 1_000_000) } ?? "unknown bandwidth"
        guard let resolution = variant.resolution else { return rate }
        return "\(resolution.width)x\(resolution.height), \(rate)"
    }
}
