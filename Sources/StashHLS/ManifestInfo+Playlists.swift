import StashCore

extension ManifestInfo {
    /// What `stash plan` shows, from the master playlist and whichever media playlists were
    /// fetched (`media` maps an absolute playlist URI to it). `master == nil` means the URL was
    /// a media playlist, and `media` holds that one.
    ///
    /// A variant whose playlist is missing gets the duration of the others (every variant of
    /// a presentation is as long) and a bandwidth estimate; 0 when nothing is known.
    package init(master: MasterPlaylist?, media: [String: MediaPlaylist]) {
        self.init(master: master, summaries: media.mapValues(MediaSummary.init))
    }

    /// The same from summaries of the media playlists (`MediaSummary`).
    package init(master: MasterPlaylist?, summaries media: [String: MediaSummary]) {
        guard let master else {
            let sorted = media.sorted { $0.key < $1.key }
            let variants = sorted.map { uri, playlist in Self.variantInfo(uri: uri, playlist: playlist) }
            // The playlist asked for is named by the request; its warnings need no URI.
            var warnings = PlaylistWarnings(limit: PlaylistWarnings.perPlan)
            for (_, playlist) in sorted { Self.add(playlist, uri: nil, to: &warnings) }
            self.init(variants: variants, duration: variants.first?.duration ?? 0, warnings: warnings.lines)
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
                info.estimatedBytes = ByteCount.estimate(bitsPerSecond: variant.averageBandwidth ?? variant.bandwidth ?? 0,
                                                         seconds: info.duration)
            }
            return info
        }
        func renditions(_ type: Rendition.MediaType) -> [RenditionInfo] {
            master.renditions.filter { $0.type == type }.map {
                RenditionInfo(groupID: $0.groupID, language: $0.language ?? "", name: $0.name, isDefault: $0.isDefault,
                              forced: $0.forced, uri: $0.uri ?? "")
            }
        }
        var warnings = PlaylistWarnings(limit: PlaylistWarnings.perPlan)
        for line in master.warnings { warnings.add(line: nil, line) }
        var named = Set<String>()
        for variant in master.variants where named.insert(variant.uri).inserted {
            if let playlist = media[variant.uri] { Self.add(playlist, uri: variant.uri, to: &warnings) }
        }
        let firstDuration = master.variants.first.flatMap { media[$0.uri]?.totalDuration } ?? knownDuration
        self.init(variants: variants, audio: renditions(.audio), subtitles: renditions(.subtitles), duration: firstDuration,
                  warnings: warnings.lines)
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
