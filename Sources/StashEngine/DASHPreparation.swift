import Foundation
import StashCore
import StashDASH
import StashFetch
import StashHLS

/// Reads a DASH download's MPD and turns it into its offline package: chooses the
/// representations as for HLS (`HLSOptions`), reads the `sidx` of each one-file representation,
/// writes the local MPD and lists the segments as the download's files. The MPD arrives already
/// fetched: `HLSPreparation` reads the download's URL and hands over what is an MPD.
struct DASHPreparation: Sendable {
    let hls: HLSPreparation

    /// The largest `sidx` read: its box lists at most 65,535 references of 12 bytes.
    static let maxIndexBytes = 1024 * 1024

    /// A body that is an MPD (XML whose first element is `MPD`), not a playlist.
    static func looksLikeMPD(_ body: FetchedBody) -> Bool {
        if body.contentType == "application/dash+xml" { return true }
        let head = body.bytes.prefix(4096)
        let text = String(decoding: head, as: UTF8.self)
        return text.contains("<MPD") && (text.hasPrefix("<") || text.hasPrefix("\u{FEFF}<") || text.drop { $0.isWhitespace }.hasPrefix("<"))
    }

    static func parse(_ body: FetchedBody, uri: String) throws -> MPD {
        do {
            return try MPD.parse(body.bytes, url: body.effectiveURL)
        } catch let error as DASHError {
            throw DownloadError(.validation, "MPD \(uri): \(error.message)")
        }
    }

    /// What `stash plan` shows of the MPD; the index of each one-file (SegmentBase) video
    /// representation is read, so its size is exact.
    func manifest(_ body: FetchedBody, uri: String, headers: [HTTPHeader], start: Double?, end: Double?) async throws -> ManifestInfo {
        let mpd = try Self.parse(body, uri: uri)
        let video = mpd.periods.first?.adaptationSets.filter { $0.kind == .video }.flatMap(\.representations) ?? []
        let indexes = try await readIndexes(video, headers: headers)
        do {
            return try ManifestInfo(mpd: mpd, start: start, end: end, indexes: indexes)
        } catch let error as DASHError {
            throw DownloadError(.validation, "MPD \(uri): \(error.message)")
        }
    }

    func prepare(id: String, body: FetchedBody, uri: String, headers: [HTTPHeader], options: HLSOptions, folder: String,
                 held: HLSPreparation.HeldLicense = HLSPreparation.HeldLicense(), keyPrefix: String = "") async throws -> HLSPreparation.Prepared
    {
        let mpd = try Self.parse(body, uri: uri)
        let package: DASHPackage
        let licensed: [PackageKey]
        do {
            let tracks = try mpd.select(options)
            licensed = try Self.licensedKeys(tracks, uri: uri, drm: held.drm)
            let indexes = try await readIndexes(tracks, headers: headers)
            package = try DASHPackage.make(mpd: mpd, tracks: tracks, indexes: indexes, start: options.start, end: options.end)
        } catch let error as DASHError {
            throw DownloadError(.validation, "MPD \(uri): \(error.message)")
        }
        // The segments stay encrypted on disk; their keys come from the licence server, sealed.
        var license: LicenseTerms?
        if let drm = held.drm, !licensed.isEmpty {
            license = try await hls.acquire(licensed, asset: id, drm: drm, held: held.terms, keyPrefix: keyPrefix)
        }
        try Task.checkCancellation()
        try DurableFile.write(Array(package.manifest.utf8), folder: folder, relativePath: DASHPackage.manifestPath)
        let files = package.files.map { file in
            DownloadFile.segment(
                url: file.url, path: file.path, size: file.range.map { Int64(clamping: $0.length) },
                rangeOffset: file.range.map { Int64(clamping: $0.offset) }, container: file.container, in: folder)
        }
        // As for HLS, the record says what the package holds: an end past the presentation is its end.
        let window = package.window.map { kept in
            SegmentWindow(start: kept.start, end: kept.end, clampedFrom: (options.end ?? 0) > kept.end ? options.end : nil)
        }
        let notes = window?.clampedFrom.map { asked in
            ["hls.end \(HLSRules.seconds(asked)) is past the end of the presentation, which lasts \(HLSRules.seconds(mpd.duration)) s: the range ends there"]
        }
        return HLSPreparation.Prepared(
            files: files, keyPaths: licensed.map(\.path), playlistPaths: [DASHPackage.manifestPath], quality: package.quality,
            hasSubtitles: package.hasSubtitles, estimatedBytes: package.estimatedBytes,
            licenseKeyIDs: HLSPreparation.licenseKeyIDs(licensed), license: license,
            window: window, windowNotes: notes ?? [])
    }

    /// The content keys the chosen tracks need, one per `cenc:default_KID`, to be asked of the
    /// licence server. Content only a CDM decrypts (Widevine, PlayReady, ...) is refused by the
    /// system's name; ClearKey or plain `cenc` content needs DRM parameters and a default KID.
    static func licensedKeys(_ tracks: [DASHTrack], uri: String, drm: DRMParams?) throws -> [PackageKey] {
        var keys: [PackageKey] = []
        for track in tracks where !track.set.protections.isEmpty {
            let protections = track.set.protections
            let id = track.representation.id
            let systems = protections.compactMap(\.systemWithoutCDM)
            if !protections.contains(where: { $0.schemeIdUri == ContentProtection.clearKeySystem }), !systems.isEmpty,
               !protections.contains(where: { $0.schemeIdUri == ContentProtection.mp4Protection && drm != nil }) {
                throw DownloadError(.validation, "MPD \(uri): representation \(id) is protected by \(systems.joined(separator: " and ")), which only a CDM can decrypt; stash keeps ClearKey content only")
            }
            guard drm != nil else {
                throw DownloadError(.validation, "MPD \(uri): representation \(id) is encrypted (CENC); its key comes from a licence server: add the download with DRM parameters (stash add URL --drm-type clearkey --license-server URL)")
            }
            guard let text = protections.compactMap(\.defaultKID).first, let kid = Self.kid(text) else {
                throw DownloadError(.validation, "MPD \(uri): representation \(id) is encrypted but names no cenc:default_KID (a UUID) to ask the licence server for")
            }
            let hex = kid.map { String(format: "%02x", $0) }.joined()
            if !keys.contains(where: { $0.licenseKeyID == kid }) {
                keys.append(PackageKey(uri: "cenc:" + hex, path: "keys/" + hex, licenseKeyID: kid))
            }
        }
        return keys
    }

    /// The 16 bytes of a UUID written `6e5a1d26-2757-47d7-8046-eaa5d1d34b5a` (hyphens optional).
    static func kid(_ text: String) -> [UInt8]? {
        let digits = Array(text.filter { $0 != "-" }.utf8)
        guard digits.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// Fetches the `sidx` byte range of each chosen one-file (SegmentBase) representation.
    private func readIndexes(_ tracks: [DASHTrack], headers: [HTTPHeader]) async throws -> [String: [UInt8]] {
        try await readIndexes(tracks.map(\.representation), headers: headers)
    }

    private func readIndexes(_ representations: [Representation], headers: [HTTPHeader]) async throws -> [String: [UInt8]] {
        var indexes: [String: [UInt8]] = [:]
        for representation in representations {
            guard let (url, range) = representation.indexRequest else { continue }
            let key = DASHPackage.indexKey(url: url, range: range)
            guard indexes[key] == nil else { continue }
            guard range.length <= UInt64(Self.maxIndexBytes) else {
                throw DownloadError(.validation, "the index range of representation \(representation.id) is \(range.length) bytes; the limit is \(Self.maxIndexBytes)")
            }
            var request = hls.request(url, headers: headers, limit: Self.maxIndexBytes)
            request.range = FetchRange(offset: Int64(clamping: range.offset), length: Int64(clamping: range.length))
            indexes[key] = try await hls.fetch.fetchBody(request, waitingForNetwork: hls.waitingForNetwork).bytes
        }
        return indexes
    }
}
