import Foundation
import StashCore

/// An add as a client gave it (AddDownload, `Engine.add`): one file from `uri`, a bundle of
/// `files`, or an HLS stream (`hls` given, or a `uri` whose path ends in .m3u8). `validated()`
/// checks it field by field, in the order a client reads the errors, and makes it a
/// `NewDownload`; whether it is new, already there or held by another download is
/// `EngineState.decideAdd`'s.
package struct AddRequest: Sendable {
    var id = ""
    var uri = ""
    var files: [BundleFileSpec] = []
    var title = ""
    var sha256 = ""
    var headers: [HTTPHeader] = []
    var hls: HLSOptions?
    var drm: DRMParams?
    var force = false
    /// Fetch the download that holds this id or content again and swap it in when complete.
    var replace = false
    var appData: [UInt8] = []
    var group = ""
    var textTracks: [TextTrack] = []
    /// Bytes per second over all its transfers; 0 is none.
    var rateLimit: Int64 = 0
    /// Its own answers to the desktop's facts; nil follows the config.
    var network: NetworkRequirement?
    var onBattery: BatteryPolicy?
    var expect = ""
    var minSize: Int64 = 0
    var priority = DownloadPriority.normal

    package init(
        id: String = "", uri: String = "", files: [BundleFileSpec] = [], title: String = "", sha256: String = "", headers: [HTTPHeader] = [],
        hls: HLSOptions? = nil, drm: DRMParams? = nil, force: Bool = false, appData: [UInt8] = [], group: String = "",
        textTracks: [TextTrack] = [], rateLimit: Int64 = 0, expect: String = "", minSize: Int64 = 0,
        priority: DownloadPriority = .normal, replace: Bool = false, network: NetworkRequirement? = nil, onBattery: BatteryPolicy? = nil
    ) {
        self.id = id
        self.uri = uri
        self.files = files
        self.title = title
        self.sha256 = sha256
        self.headers = headers
        self.hls = hls
        self.drm = drm
        self.force = force
        self.appData = appData
        self.group = group
        self.textTracks = textTracks
        self.rateLimit = rateLimit
        self.expect = expect
        self.minSize = minSize
        self.priority = priority
        self.replace = replace
        self.network = network
        self.onBattery = onBattery
    }

    /// The request checked, with its files made: the first field that breaks a rule is the
    /// error, naming it.
    func validated() throws -> NewDownload {
        let isBundle = !files.isEmpty
        // Parsed once for every question below (is it a playlist, is it valid, its file name):
        // parsing a URL costs more than the rest of the checks together.
        let parsed = isBundle ? nil : URLComponents(string: uri)
        // DRM parameters say the stream is HLS: only HLS keys come from a licence server.
        let hls = self.hls ?? (isBundle || (drm == nil && !HLSRules.looksLikePlaylist(path: parsed?.path ?? "")) ? nil : HLSOptions())
        if let drm {
            guard hls != nil else { throw StashError.invalidArgument("drm applies to HLS streams, not to a bundle of files") }
            try DRMRules.validate(drm)
        }
        if let hls {
            guard !isBundle else { throw StashError.invalidArgument("give either hls options or files, not both") }
            guard sha256.isEmpty else { throw StashError.invalidArgument("sha256 applies to a single file, not to an HLS stream") }
            try DownloadRequestRules.validateURI(uri, parsed: parsed)
            try HLSRules.validate(hls)
        } else if isBundle {
            guard uri.isEmpty else {
                throw StashError.invalidArgument("give either uri or files, not both (uri '\(uri.prefix(200))' with \(files.count) files)")
            }
            guard sha256.isEmpty else { throw StashError.invalidArgument("sha256 applies to a single file; give each file of a bundle its own sha256") }
        } else {
            try DownloadRequestRules.validateURI(uri, parsed: parsed)
        }
        try DownloadRequestRules.validateTitle(title)
        try DownloadRequestRules.validateHeaders(headers)
        try DownloadRequestRules.validateAppData(appData)
        try DownloadRequestRules.validateGroup(group)
        let digest = try DownloadRequestRules.normalizeSHA256(sha256)
        let rules = try ContentRules.validated(expect: expect, minSize: minSize)
        if hls != nil, !rules.expect.isEmpty || rules.minSize > 0 {
            throw StashError.invalidArgument("expect and min_size apply to files, not to an HLS stream; its segments are always checked for their container's signature")
        }
        let contentFiles =
            hls != nil ? []
            : isBundle ? try BundleRules.files(from: files, fileName: AssetLayout.fileName(from:))
            : [DownloadFile(url: uri, path: AssetLayout.fileName(percentEncodedPath: parsed?.percentEncodedPath ?? ""), sha256: digest)]
        let checkedFiles = ContentRules.inheriting(contentFiles, expect: rules.expect, minSize: rules.minSize)
        let tracks = try TextTrackRules.added(textTracks, to: [], files: checkedFiles)
        if !id.isEmpty { try DownloadRequestRules.validateID(id) }
        guard rateLimit >= 0 else {
            throw StashError.invalidArgument("rate_limit: \(rateLimit) is negative; give bytes per second, 0 = none")
        }
        var new = NewDownload(
            id: id, uri: uri, title: title, sha256: digest, headers: headers, hls: hls, drm: drm, force: force, appData: appData, group: group,
            isBundle: isBundle, files: checkedFiles, textTracks: tracks, expect: rules.expect, minSize: rules.minSize)
        new.rateLimit = rateLimit
        new.network = network
        new.onBattery = onBattery
        new.priority = priority
        new.replace = replace
        return new
    }
}
