import StashCore
import StashWire

/// SetDownload and Move: a download changed after its add. Each method throws
/// `UNIMPLEMENTED` before sending to a daemon without its feature, which would ignore the field.
extension StashClient {
    /// Changes several settings of a download in one SetDownload: a daemon of this version
    /// checks every field before it applies any, so a request refused for one field (headers
    /// the download cannot take) changes nothing; an older one applies them in order and stops
    /// at the refused one. Each field needs its daemon feature, as the methods of one field
    /// below say, and is checked as they check it; `file` goes with `uri`. `headers` and
    /// `licenseHeaders` replace the headers of their names after an optional clear. Returns the
    /// record after the change.
    public func setDownload(
        id: String, priority: DownloadPriority? = nil, rateLimit: Int64? = nil, uri: String? = nil, file: String? = nil,
        headers: [HTTPHeader] = [], clearHeaders: Bool = false, licenseHeaders: [HTTPHeader] = [], clearLicenseHeaders: Bool = false,
        network: NetworkRequirement? = nil, onBattery: BatteryPolicy? = nil
    ) async throws -> Download {
        var request = DownloadChanges(id: id, priority: priority, rateLimit: rateLimit, uri: uri, file: file, network: network, onBattery: onBattery)
        if priority != nil { try requirePriority() }
        if network != nil || onBattery != nil { try requireDesktop() }
        if let rateLimit { try checkRateLimit(rateLimit) }
        if let uri {
            try checkURI(uri, file: file)
        } else if let file {
            throw StashError.invalidArgument("file '\(file.prefix(256))' is given without a uri; file names the bundle file whose URL changes")
        }
        if !headers.isEmpty || clearHeaders { request.headers = try headerChange(headers, clear: clearHeaders, field: "headers") }
        if !licenseHeaders.isEmpty || clearLicenseHeaders {
            request.licenseHeaders = try headerChange(licenseHeaders, clear: clearLicenseHeaders, field: "license_headers")
        }
        guard priority != nil || rateLimit != nil || uri != nil || request.headers != nil || request.licenseHeaders != nil || network != nil
            || onBattery != nil
        else {
            throw StashError.invalidArgument(
                "no setting to change; give a priority, a rate limit, a uri, headers, licence headers, a network rule or an on-battery rule")
        }
        return try await downloadResult(of: .setDownload(request))
    }

    /// Gives a download another priority (SetDownload, daemon feature `priority`): a queued one
    /// goes to the end of its new priority's queue. Returns its record after the change.
    public func setPriority(id: String, _ priority: DownloadPriority) async throws -> Download {
        try await setDownload(id: id, priority: priority)
    }

    /// Gives a download its own rate limit in bytes per second, 0 = none (SetDownload, daemon
    /// feature `set-download`): its running transfers take it at once. Returns its record.
    public func setRateLimit(id: String, _ bytesPerSecond: Int64) async throws -> Download {
        try await setDownload(id: id, rateLimit: bytesPerSecond)
    }

    /// Gives a single-file download a new URL (SetDownload, daemon feature `set-uri`), such as
    /// a signed URL renewed after the old one expired; `file` names a bundle file by its path
    /// (feature `set-file-uri`). The bytes held are kept when the new URL serves the same
    /// content (its ETag or Last-Modified matches, and its size); a running download restarts
    /// on it at once, a paused or failed one waits for its resume. Returns its record.
    public func setURI(id: String, _ uri: String, file: String? = nil) async throws -> Download {
        try await setDownload(id: id, uri: uri, file: file)
    }

    private func checkRateLimit(_ bytesPerSecond: Int64) throws {
        guard daemonInfo.features.contains("set-download") else {
            throw StashError(.unimplemented, "stashd \(daemonInfo.daemonVersion) cannot change a download's rate limit (feature \"set-download\")")
        }
        guard bytesPerSecond >= 0 else {
            // On the wire it would read as a limit above Int64.max.
            throw StashError.invalidArgument("rate_limit: \(bytesPerSecond) is negative; give bytes per second, 0 = none")
        }
    }

    private func checkURI(_ uri: String, file: String?) throws {
        let feature = file == nil ? "set-uri" : "set-file-uri"
        guard daemonInfo.features.contains(feature) else {
            let what = file == nil ? "a download's URL" : "a bundle file's URL"
            throw StashError(.unimplemented, "stashd \(daemonInfo.daemonVersion) cannot change \(what) (feature \"\(feature)\")")
        }
        guard !uri.isEmpty else {
            // On the wire an empty URL reads as none given.
            throw StashError.invalidArgument("uri is empty; give an http:// or https:// URL")
        }
        if let file, file.isEmpty {
            // On the wire an empty path reads as none given: the bundle would be refused.
            throw StashError.invalidArgument("file is empty; give the path of the bundle file whose URL changes")
        }
    }

    /// Moves a QUEUED download in the queue (Move, daemon feature `priority`); returns its record.
    public func move(id: String, _ move: QueueMove) async throws -> Download {
        try requirePriority()
        return try await downloadResult(of: .move(id: id, move))
    }

    /// Changes the headers a download's requests carry (SetDownload, daemon feature
    /// `set-headers`): `clear` drops them all first, then each header given replaces those of
    /// its name (in any case) or is added. The transfers started from then on carry them; a
    /// running download restarts on them at once, each file keeping its bytes. Each header is
    /// checked as `addDownload` checks it. Returns the record.
    public func setHeaders(id: String, _ headers: [HTTPHeader], clear: Bool = false) async throws -> Download {
        _ = try headerChange(headers, clear: clear, field: "headers")
        return try await setDownload(id: id, headers: headers, clearHeaders: clear)
    }

    /// The same for the headers of the download's licence requests (its DRM parameters'): the
    /// next acquire, renewal and release carry them, and a licence whose renewal the server
    /// refused (an expired token's 401) is asked for again at once with them.
    public func setLicenseHeaders(id: String, _ headers: [HTTPHeader], clear: Bool = false) async throws -> Download {
        _ = try headerChange(headers, clear: clear, field: "license_headers")
        return try await setDownload(id: id, licenseHeaders: headers, clearLicenseHeaders: clear)
    }

    private func headerChange(_ headers: [HTTPHeader], clear: Bool, field: String) throws -> HeaderChange {
        guard daemonInfo.features.contains("set-headers") else {
            throw StashError(.unimplemented, "stashd \(daemonInfo.daemonVersion) cannot change a download's headers (feature \"set-headers\")")
        }
        let change = HeaderChange(headers: headers, clear: clear)
        guard !change.isEmpty else {
            // On the wire neither a header nor a clear reads as none given.
            throw StashError.invalidArgument("\(field): none given and no clear; give a header or clear: true")
        }
        try change.validate(field: field, result: headers, limit: field == "headers" ? DownloadRequestRules.maxHeaders : DRMRules.maxHeaders)
        return change
    }
}
