import StashCore

extension ManifestInfo {
    /// What `stash plan` shows, from the master playlist and whichever media playlists were
    /// fetched (`media` maps an absolute playlist URI to it). `master == nil` means the URL was
    /// a media playlist, and `media` holds that one.
    ///
    /// A variant whose playlist is missing gets the duration of the others (every variant of
    /// a presentation is as long) and a bandwidth estimate; 0 when nothing is known.
    package init(master: MasterPlaylist?, media: [String: MediaPlaylist]) {
        self.init(master: master, summaries: media.mapValues { MediaSummary($0) })
    }

    /// The same from summaries of the media playlists (`MediaSummary`).
    package init(master: MasterPlaylist?, summaries media: [String: MediaSummary]) {
        self.init(master: master, summaries: media, window: nil)
    }

    /// The same for a time range (`start`, `end` in seconds), resolved against the stream's
    /// duration (`SegmentWindow`, which throws `.outOfRange` for a range outside it): the
    /// summaries must be of the segments in the range (`MediaSummary(_:start:end:)`). A variant
    /// whose playlist was not read is estimated for the range's length.
    package init(master: MasterPlaylist?, summaries media: [String: MediaSummary], start: Double?, end: Double?) throws(HLSError) {
        let whole = ManifestInfo(master: master, summaries: media, window: nil)
        guard start != nil || end != nil else {
            self = whole
            return
        }
        self.init(master: master, summaries: media, window: try SegmentWindow(start: start, end: end, duration: whole.duration))
    }

    private init(master: MasterPlaylist?, summaries media: [String: MediaSummary], window: SegmentWindow?) {
        var warnings = PlaylistWarnings(limit: PlaylistWarnings.perPlan)
        if let window, let asked = window.clampedFrom {
            warnings.add(line: nil, "hls.end \(HLSRules.seconds(asked)) is past the end of the stream, which lasts \(HLSRules.seconds(window.end)) s: the range ends there")
        }
        guard let master else {
            let sorted = media.sorted { $0.key < $1.key }
            let variants = sorted.map { uri, playlist in Self.variantInfo(uri: uri, playlist: playlist) }
            // The playlist asked for is named by the request; its warnings need no URI.
            for (_, playlist) in sorted { Self.add(playlist, uri: nil, to: &warnings) }
            self.init(variants: variants, duration: variants.first?.duration ?? 0, warnings: warnings.lines, start: window?.start,
                      end: window?.end)
            return
        }
        let knownDuration = master.variants.lazy.compactMap { media[$0.uri]?.totalDuration }.first ?? 0
        let variants = master.variants.map { variant -> VariantInfo in
            var info = VariantInfo(
                uri: variant.uri, bandwidth: variant.bandwidth, averageBandwidth: variant.averageBandwidth,
                width: variant.resolution?.width, height: variant.resolution?.height, codecs: variant.codecs,
                frameRate: variant.frameRate)
            let playlist = media[variant.uri]
            info.duration = playlist?.totalDuration ?? knownDuration
            info.encryption = playlist?.encryption ?? []
            if let exact = playlist.flatMap({ $0.exactBytes }) {
                info.estimatedBytes = exact
                info.sizeIsExact = true
            } else {
                // AVERAGE-BANDWIDTH is what a whole playback costs; BANDWIDTH is the peak.
                let seconds = playlist?.keptDuration ?? window.map { $0.end - $0.start } ?? info.duration
                info.estimatedBytes = ByteCount.estimate(bitsPerSecond: variant.averageBandwidth ?? variant.bandwidth ?? 0,
                                                         seconds: seconds)
            }
            return info
        }
        func renditions(_ type: Rendition.MediaType) -> [RenditionInfo] {
            master.renditions.filter { $0.type == type }.map {
                RenditionInfo(groupID: $0.groupID, language: $0.language ?? "", name: $0.name, isDefault: $0.isDefault,
                              forced: $0.forced, uri: $0.uri ?? "")
            }
        }
        for line in master.warnings { warnings.add(line: nil, line) }
        var named = Set<String>()
        for variant in master.variants where named.insert(variant.uri).inserted {
            if let playlist = media[variant.uri] { Self.add(playlist, uri: variant.uri, to: &warnings) }
        }
        let firstDuration = master.variants.first.flatMap { media[$0.uri]?.totalDuration } ?? knownDuration
        self.init(variants: variants, audio: renditions(.audio), subtitles: renditions(.subtitles), duration: firstDuration,
                  warnings: warnings.lines, start: window?.start, end: window?.end)
    }

    /// A media playlist's warnings, and that it is live, with its URI before each when it is
    /// not the playlist asked for.
    private static func add(_ playlist: MediaSummary, uri: String?, to warnings: inout PlaylistWarnings) {
        let prefix = uri.map { "\($0.prefix(200)): " } ?? ""
        for line in playlist.warnings { warnings.add(line: nil, prefix + line) }
        if !playlist.hasEndList {
            warnings.add(line: nil, prefix + "the media playlist has no EXT-X-ENDLIST: it is live, and stash downloads only VOD")
        }
    }

    /// A media playlist opened directly: there is no BANDWIDTH, so it is computed when every
    /// segment's size is known (peak and average, as section 4.3.4.2 defines them), else unknown.
    private static func variantInfo(uri: String, playlist: MediaSummary) -> VariantInfo {
        var info = VariantInfo(uri: uri, bandwidth: nil, encryption: playlist.encryption, duration: playlist.totalDuration)
        if let exact = playlist.exactBytes {
            info.estimatedBytes = exact
            info.sizeIsExact = true
        }
        if let rates = playlist.bitRates {
            info.bandwidth = rates.peak
            info.averageBandwidth = rates.average
        }
        return info
    }
}
