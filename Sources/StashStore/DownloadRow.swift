import Foundation
import GRDB
import StashCore

/// The mapping between a `Download` and a row of the `download` table. Decoding reads columns
/// by index from a reused cursor row, because Codable reflection costs several times more on
/// a 100,000-row start.
enum DownloadRow {
    static let upsertSQL = """
        INSERT INTO download (
            id, uri, title, state, downloaded_bytes, total_bytes, quality, has_subtitles,
            has_drm, asset_path, error_kind, error_message, error_http_status, state_reason,
            created_at, completed_at, sha256, headers, is_bundle, hls, drm, app_data, group_path, text_tracks, rate_limit, expect, min_size,
            sequence, priority, queue_position, network, on_battery)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
            (SELECT IFNULL(MAX(sequence), 0) + 1 FROM download), ?, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET
            uri = excluded.uri, title = excluded.title, state = excluded.state,
            downloaded_bytes = excluded.downloaded_bytes, total_bytes = excluded.total_bytes,
            quality = excluded.quality, has_subtitles = excluded.has_subtitles,
            has_drm = excluded.has_drm, asset_path = excluded.asset_path,
            error_kind = excluded.error_kind, error_message = excluded.error_message,
            error_http_status = excluded.error_http_status, state_reason = excluded.state_reason,
            created_at = excluded.created_at, completed_at = excluded.completed_at,
            sha256 = excluded.sha256, headers = excluded.headers, is_bundle = excluded.is_bundle,
            hls = excluded.hls, drm = excluded.drm, app_data = excluded.app_data, group_path = excluded.group_path,
            text_tracks = excluded.text_tracks, rate_limit = excluded.rate_limit, expect = excluded.expect, min_size = excluded.min_size,
            priority = excluded.priority, queue_position = excluded.queue_position,
            network = excluded.network, on_battery = excluded.on_battery
        """

    /// The columns a change of state or progress moves, alone: a download's every transition
    /// was a write of all 31 columns, headers and choices encoded again each time.
    static let progressSQL = """
        UPDATE download SET state = ?, downloaded_bytes = ?, total_bytes = ?, error_kind = ?, error_message = ?,
            error_http_status = ?, state_reason = ?, completed_at = ?
        WHERE id = ?
        """

    static let deleteSQL = "DELETE FROM download WHERE id = ?"

    /// Column order matches the indexes read in `decode`.
    static let selectAllSQL = """
        SELECT id, uri, title, state, downloaded_bytes, total_bytes, quality, has_subtitles,
            has_drm, asset_path, error_kind, error_message, error_http_status, state_reason,
            created_at, completed_at, sha256, headers, is_bundle, hls, drm, app_data, group_path, text_tracks, rate_limit, expect, min_size,
            priority, queue_position, network, on_battery
        FROM download ORDER BY sequence
        """

    /// Binds the parameters of `upsertSQL`, in its order, and writes the row.
    static func write(_ download: Download, with upsert: inout RowStatement) throws {
        upsert.add(download.id)
        upsert.add(download.uri)
        upsert.add(download.title)
        upsert.add(download.state.name)
        upsert.add(download.downloadedBytes)
        upsert.add(download.totalBytes)
        upsert.add(download.quality)
        upsert.add(download.hasSubtitles)
        upsert.add(download.hasDRM)
        upsert.add(download.assetPath)
        addError(download.error, to: &upsert)
        upsert.add(download.stateReason)
        upsert.add(milliseconds(download.createdAt))
        upsert.add(download.completedAt.map(milliseconds))
        upsert.add(download.sha256)
        upsert.add(try encodeHeaders(download.headers))
        upsert.add(download.isBundle)
        upsert.add(try encodeHLS(download))
        upsert.add(try encodeDRM(download))
        upsert.add(blob: download.appData)
        upsert.add(download.group)
        upsert.add(try encodeTextTracks(download.textTracks))
        upsert.add(download.rateLimit)
        upsert.add(download.expect)
        upsert.add(download.minSize)
        upsert.add(download.priority.rawValue)
        upsert.add(download.queuePosition)
        upsert.add(download.network?.rawValue ?? "")
        upsert.add(download.onBattery?.rawValue ?? "")
        try upsert.run()
    }

    /// Binds the parameters of `progressSQL` and writes them; for a download whose other
    /// columns are as last written (`Download.differsOnlyInProgress`).
    static func writeProgress(_ download: Download, with update: inout RowStatement) throws {
        update.add(download.state.name)
        update.add(download.downloadedBytes)
        update.add(download.totalBytes)
        addError(download.error, to: &update)
        update.add(download.stateReason)
        update.add(download.completedAt.map(milliseconds))
        update.add(download.id)
        try update.run()
    }

    /// The three error columns, in their order: kind, message, HTTP status.
    private static func addError(_ error: DownloadError?, to statement: inout RowStatement) {
        statement.add(error.map { $0.kind.rawValue })
        statement.add(error?.message)
        statement.add(error?.httpStatus)
    }

    /// Reads one row. A row that cannot be a download (a required field missing or unreadable)
    /// gives nil and a problem; a recoverable oddity gives the download and a problem.
    static func decode(_ row: Row, problems: inout [String]) -> Download? {
        // Only rows with a problem are named, so the label is built only for them.
        var label: String {
            ((try? row.decode(String?.self, atIndex: 0)) ?? nil).map { "download row '\($0)'" } ?? "download row with no id"
        }
        do {
            guard let id = try row.decode(String?.self, atIndex: 0), !id.isEmpty else {
                problems.append("\(label) skipped: required field 'id' is missing")
                return nil
            }
            let isBundle = try row.decode(Bool?.self, atIndex: 18) ?? false
            let uri = try row.decode(String?.self, atIndex: 1) ?? ""
            guard isBundle || !uri.isEmpty else {
                problems.append("\(label) skipped: required field 'uri' is missing")
                return nil
            }
            guard let stateName = try row.decode(String?.self, atIndex: 3) else {
                problems.append("\(label) skipped: required field 'state' is missing")
                return nil
            }
            guard let createdMs = try row.decode(Int64?.self, atIndex: 14) else {
                problems.append("\(label) skipped: required field 'created_at' is missing")
                return nil
            }
            let state = DownloadState(name: stateName)
            if state == nil {
                // Paused rather than failed or dropped: the bytes on disk stay and a client can
                // resume or remove it once it sees the download.
                problems.append("\(label): unknown state '\(stateName)' read as PAUSED")
            }
            var error: DownloadError?
            if let kindValue = try row.decode(Int?.self, atIndex: 10) {
                let kind = DownloadError.Kind(rawValue: kindValue) ?? .internal
                if kind.rawValue != kindValue {
                    problems.append("\(label): unknown error kind \(kindValue) read as internal")
                }
                error = DownloadError(kind, try row.decode(String?.self, atIndex: 11) ?? "", httpStatus: try row.decode(Int?.self, atIndex: 12) ?? 0)
            }
            // The common fields at once: each change of a `Download` checks that its storage is
            // its own, and 100,000 rows are read at every start.
            var download = Download(
                id: id, uri: uri, title: try row.decode(String?.self, atIndex: 2) ?? "", state: state ?? .paused,
                downloadedBytes: try row.decode(Int64?.self, atIndex: 4) ?? 0, totalBytes: try row.decode(Int64?.self, atIndex: 5),
                quality: try row.decode(String?.self, atIndex: 6) ?? "", hasSubtitles: try row.decode(Bool?.self, atIndex: 7) ?? false,
                hasDRM: try row.decode(Bool?.self, atIndex: 8) ?? false, assetPath: try row.decode(String?.self, atIndex: 9) ?? "",
                error: error, stateReason: try row.decode(String?.self, atIndex: 13) ?? "", createdAt: date(milliseconds: createdMs),
                completedAt: try row.decode(Int64?.self, atIndex: 15).map(date(milliseconds:)),
                sha256: try row.decode(String?.self, atIndex: 16) ?? "", isBundle: isBundle)
            let headersJSON = try row.decode(String?.self, atIndex: 17) ?? "[]"
            do {
                let headers = try decodeHeaders(headersJSON)
                if !headers.isEmpty { download.headers = headers }
            } catch {
                problems.append("\(label): headers '\(headersJSON)' are not a JSON array of {name, value}; read as none")
            }
            if let json = try row.decode(String?.self, atIndex: 19) {
                do {
                    let stored = try JSONDecoder().decode(StoredHLS.self, from: Data(json.utf8))
                    download.hls = stored.options
                    download.hlsKeys = stored.keys
                    download.hlsPlaylists = stored.playlists
                } catch {
                    // Its segments may be on disk; paused, a client can see it and remove it.
                    download.hls = HLSOptions()
                    download.state = .paused
                    problems.append("\(label): HLS choice '\(json.prefix(200))' is unreadable; read as the default choice, PAUSED")
                }
            }
            if let json = try row.decode(String?.self, atIndex: 20) {
                do {
                    let decoder = JSONDecoder()
                    decoder.dateDecodingStrategy = .millisecondsSince1970
                    let stored = try decoder.decode(StoredDRM.self, from: Data(json.utf8))
                    download.drm = stored.params
                    download.license = stored.license
                    download.licenseKeyIDs = stored.keyIDs
                } catch {
                    // Without its licence facts the keys cannot be renewed or checked; paused,
                    // a client can see it and remove it or ask for a licence again.
                    download.state = .paused
                    problems.append("\(label): DRM facts '\(json.prefix(200))' are unreadable; read as none, PAUSED")
                }
            }
            if let data = try row.decode(Data?.self, atIndex: 21) {
                if data.count <= DownloadRequestRules.maxAppDataBytes {
                    download.appData = Array(data)
                } else {
                    problems.append("\(label): app_data of \(data.count) bytes is over the \(DownloadRequestRules.maxAppDataBytes)-byte limit; read as none")
                }
            }
            let group = try row.decode(String?.self, atIndex: 22) ?? ""
            if group.isEmpty {
                // No group: nothing to check or set.
            } else if (try? DownloadRequestRules.validateGroup(group)) != nil {
                download.group = group
            } else {
                problems.append("\(label): group '\(group.prefix(200))' is not a group path; read as none")
            }
            if let json = try row.decode(String?.self, atIndex: 23) {
                download.textTracks = decodeTextTracks(json, label: label, problems: &problems)
            }
            let rateLimit = try row.decode(Int64?.self, atIndex: 24) ?? 0
            if rateLimit >= 0 {
                download.rateLimit = rateLimit
            } else {
                problems.append("\(label): rate_limit \(rateLimit) is negative; read as none")
            }
            let rules = ContentRow.decode(expect: try row.decode(String?.self, atIndex: 25), minSize: try row.decode(Int64?.self, atIndex: 26),
                                          label: label, problems: &problems)
            if rules.expect != "" || rules.minSize != 0 { (download.expect, download.minSize) = rules }
            let priority = try row.decode(Int?.self, atIndex: 27) ?? DownloadPriority.normal.rawValue
            if let known = DownloadPriority(rawValue: priority) {
                download.priority = known
            } else {
                problems.append("\(label): unknown priority \(priority) read as normal")
            }
            download.queuePosition = try row.decode(Int64?.self, atIndex: 28) ?? 0
            // '' (every older row): the config's setting holds.
            let network = try row.decode(String?.self, atIndex: 29) ?? ""
            if !network.isEmpty {
                download.network = NetworkRequirement(rawValue: network)
                if download.network == nil { problems.append("\(label): unknown network '\(network.prefix(40))' read as the config's") }
            }
            let onBattery = try row.decode(String?.self, atIndex: 30) ?? ""
            if !onBattery.isEmpty {
                download.onBattery = BatteryPolicy(rawValue: onBattery)
                if download.onBattery == nil { problems.append("\(label): unknown on_battery '\(onBattery.prefix(40))' read as the config's") }
            }
            return download
        } catch {
            problems.append("\(label) skipped: \(error)")
            return nil
        }
    }

    /// Dates are stored as integer unix milliseconds: exact in SQLite, readable by `sqlite3`,
    /// and finer than any state change needs.
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    private static func encodeHeaders(_ headers: [HTTPHeader]) throws -> String {
        if headers.isEmpty { return "[]" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(headers), as: UTF8.self)
    }

    /// The HLS part of a record, stored as one JSON column.
    private struct StoredHLS: Codable {
        var options: HLSOptions
        var keys: [String]
        var playlists: [String]
    }

    private static func encodeHLS(_ download: Download) throws -> String? {
        guard let options = download.hls else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(StoredHLS(options: options, keys: download.hlsKeys, playlists: download.hlsPlaylists)), as: UTF8.self)
    }

    /// The DRM part of a record, stored as one JSON column.
    private struct StoredDRM: Codable {
        var params: DRMParams?
        var license: LicenseTerms?
        var keyIDs: [String: String]
    }

    private static func encodeDRM(_ download: Download) throws -> String? {
        guard download.drm != nil || download.license != nil || !download.licenseKeyIDs.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        let stored = StoredDRM(params: download.drm, license: download.license, keyIDs: download.licenseKeyIDs)
        return String(decoding: try encoder.encode(stored), as: UTF8.self)
    }

    /// A text track as stored: every field optional, so one bad entry is skipped alone.
    private struct StoredTextTrack: Codable {
        var uri: String?
        var lang: String?
        var title: String?
        var type: String?
        var path: String?
    }

    private static func encodeTextTracks(_ tracks: [TextTrack]) throws -> String? {
        guard !tracks.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let stored = tracks.map { StoredTextTrack(uri: $0.uri, lang: $0.language, title: $0.title, type: $0.type, path: $0.path) }
        return String(decoding: try encoder.encode(stored), as: UTF8.self)
    }

    /// The tracks of a row, each checked as a request's would be (`TextTrackRules.validateStored`);
    /// one that fails, repeats another's file or is past the limit is skipped with a problem.
    /// Unreadable JSON reads as no tracks: the files stay on disk, and verify names them.
    static func decodeTextTracks(_ json: String, label: String, problems: inout [String]) -> [TextTrack] {
        let stored: [StoredTextTrack]
        do {
            stored = try JSONDecoder().decode([StoredTextTrack].self, from: Data(json.utf8))
        } catch {
            problems.append("\(label): text tracks '\(json.prefix(200))' are not a JSON array of tracks; read as none")
            return []
        }
        var tracks: [TextTrack] = []
        // A row may hold any number of entries: past the limit, or past as many bad ones as
        // the limit, the rest are summed up in one problem instead of one each.
        var reported = 0
        func skip(_ index: Int, _ why: String) {
            reported += 1
            if reported <= TextTrackRules.maxTracks { problems.append("\(label): text track \(index) skipped: \(why)") }
        }
        for (index, entry) in stored.enumerated() {
            guard tracks.count < TextTrackRules.maxTracks else {
                problems.append("\(label): text tracks \(index) to \(stored.count - 1) skipped: past the limit of \(TextTrackRules.maxTracks) tracks")
                break
            }
            let track = TextTrack(uri: entry.uri ?? "", language: entry.lang ?? "", title: entry.title ?? "", type: entry.type ?? "", path: entry.path ?? "")
            do {
                try TextTrackRules.validateStored(track)
            } catch let error as StashError {
                skip(index, error.message)
                continue
            } catch {
                skip(index, "\(error)")
                continue
            }
            guard !tracks.contains(where: { $0.stem.lowercased() == track.stem.lowercased() }) else {
                skip(index, "its file name '\(track.stem)' is another track's")
                continue
            }
            tracks.append(track)
        }
        if reported > TextTrackRules.maxTracks {
            problems.append("\(label): \(reported - TextTrackRules.maxTracks) more bad text tracks skipped")
        }
        return tracks
    }

    private static func decodeHeaders(_ json: String) throws -> [HTTPHeader] {
        // Most downloads have no headers; skipping the decoder for them keeps a large load fast.
        if json == "[]" || json.isEmpty { return [] }
        return try JSONDecoder().decode([HTTPHeader].self, from: Data(json.utf8))
    }
}
