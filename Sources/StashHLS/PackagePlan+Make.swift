import StashCore

extension PackagePlan {
    /// Plans the package of `selection`, whose playlists `media` holds by absolute URI.
    /// `selection` is nil when the URL was a media playlist: `media[masterURI]` is then the
    /// only playlist, and the video. With `start` or `end` (seconds), only the segments that
    /// overlap that time range are in it (`SegmentWindow`), each playlist's by its own
    /// timeline; the range is resolved against the video's duration.
    ///
    /// Throws `HLSError` naming the playlist: `.missingPlaylist` when `media` lacks one the
    /// selection needs, `.unsupported` for a live playlist (no EXT-X-ENDLIST), METHOD=SAMPLE-AES
    /// or a KEYFORMAT other than "identity" (the export can only decrypt whole AES-128
    /// segments with a raw key), `.noSegments` for an empty playlist, `.outOfRange` for a range
    /// that is not part of the video.
    package static func make(masterURI: String, selection: RenditionSelection?, media: [String: MediaPlaylist],
                             start: Double? = nil, end: Double? = nil) throws -> PackagePlan {
        func playlist(_ uri: String?, _ what: String) throws -> (String, MediaPlaylist) {
            guard let uri else {
                throw HLSError(.missingPlaylist, line: nil, "\(what) has no URI; its media is carried in the variant")
            }
            guard let found = media[uri] else {
                throw HLSError(.missingPlaylist, line: nil, "\(uri): the media playlist of \(what) was not fetched")
            }
            try PackageTrack.check(found, uri: uri)
            return (uri, found)
        }

        let (videoURI, video) = try playlist(selection?.variant.uri ?? masterURI, selection == nil ? "the stream" : "the variant")
        let window = start == nil && end == nil ? nil : try SegmentWindow(start: start, end: end, durations: video.segments.map(\.duration))
        var notes: [String] = []
        if let window, let asked = window.clampedFrom {
            notes.append("hls.end \(HLSRules.seconds(asked)) is past the end of the stream, which lasts \(HLSRules.seconds(window.end)) s: the range ends there")
        }
        let videoTrack = PackageTrack(folder: "video", source: videoURI, playlist: video, window: window)
        // A rendition with nothing in the window (one shorter than the video) is left out
        // rather than written as a playlist without segments, which players refuse.
        func inWindow(_ kind: String, _ tracks: [(Rendition, PackageTrack)]) -> [(Rendition, PackageTrack)] {
            tracks.filter { rendition, track in
                guard let window, track.kept.isEmpty else { return true }
                notes.append("the \(kind) rendition '\(rendition.name.prefix(100))' has no segment in \(HLSRules.seconds(window.start))–\(HLSRules.seconds(window.end)) s; it is left out")
                return false
            }
        }
        let audioFolders = folderNames(selection?.audio ?? [])
        let audio = inWindow("audio", try (selection?.audio ?? []).enumerated().map { index, rendition in
            let (uri, found) = try playlist(rendition.uri, "the audio rendition '\(rendition.name)'")
            return (rendition, PackageTrack(folder: "audio/\(audioFolders[index])", source: uri, playlist: found, window: window))
        })
        let subtitleFolders = folderNames(selection?.subtitles ?? [])
        let subtitles = inWindow("subtitle", try (selection?.subtitles ?? []).enumerated().map { index, rendition in
            let (uri, found) = try playlist(rendition.uri, "the subtitle rendition '\(rendition.name)'")
            return (rendition, PackageTrack(folder: "subtitles/\(subtitleFolders[index])", source: uri, playlist: found, window: window))
        })
        let tracks = [videoTrack] + audio.map(\.1) + subtitles.map(\.1)

        let files = tracks.flatMap(\.files)
        let known = files.reduce(Int64(0)) { ByteCount.add($0, $1.size ?? 0) }
        let sizeIsExact = files.allSatisfy { $0.size != nil }
        var estimate: Int64? = sizeIsExact ? known : nil
        if !sizeIsExact, let variant = selection?.variant, let rate = variant.averageBandwidth ?? variant.bandwidth {
            estimate = max(ByteCount.estimate(bitsPerSecond: rate, seconds: videoTrack.keptDuration), known)
        }
        let master = PackagePlaylist(path: masterPath, text: masterText(selection?.variant, video: videoTrack, audio: audio,
                                                                         subtitles: subtitles))
        var plan = PackagePlan(
            files: files, keys: tracks.flatMap(\.keys),
            playlists: [master] + tracks.map { PackagePlaylist(path: $0.playlistPath, text: $0.text) },
            duration: video.totalDuration, estimatedBytes: estimate, sizeIsExact: sizeIsExact)
        plan.window = window
        plan.windowNotes = notes
        return plan
    }

    /// One folder per rendition, named after its language (`en`, `und` when it has none) and
    /// numbered from the second rendition of a language on (`en-2`). Names follow the language
    /// rather than the position, so adding or removing one language later leaves the others'
    /// folders, and their files, where they are.
    static func folderNames(_ renditions: [Rendition]) -> [String] {
        var used = Set<String>()
        return renditions.map { rendition in
            let base = folderTag(rendition.language)
            var name = base
            var number = 2
            while used.contains(name) {
                name = "\(base)-\(number)"
                number += 1
            }
            used.insert(name)
            return name
        }
    }

    /// The language cut to [A-Za-z0-9-], so a LANGUAGE attribute can never name a path of its own.
    static func folderTag(_ language: String?) -> String {
        let cleaned = String((language ?? "").prefix(35).map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" })
        return cleaned.allSatisfy { $0 == "-" } ? "und" : cleaned
    }

    /// The local master: only what was kept, so a player cannot pick a variant or rendition
    /// whose files are not there. Groups are named after the variant's, and a variant attribute
    /// names a group only when the package has renditions in it (section 4.3.4.2 requires the
    /// group to exist).
    private static func masterText(_ variant: Variant?, video: PackageTrack, audio: [(Rendition, PackageTrack)],
                                   subtitles: [(Rendition, PackageTrack)]) -> String {
        var lines = ["#EXTM3U"]
        let audioGroup = variant?.audioGroup ?? audio.first?.0.groupID ?? "audio"
        let subtitlesGroup = variant?.subtitlesGroup ?? subtitles.first?.0.groupID ?? "subtitles"
        // When the source's default audio was not kept, the first kept one becomes the
        // default, so a player does not start silent.
        let forceDefault = !audio.contains { $0.0.isDefault }
        for (index, (rendition, track)) in audio.enumerated() {
            let isDefault = rendition.isDefault || (forceDefault && index == 0)
            lines.append(mediaLine(rendition, group: audioGroup, isDefault: isDefault, forced: nil, uri: track.playlistPath))
        }
        for (rendition, track) in subtitles {
            lines.append(mediaLine(rendition, group: subtitlesGroup, isDefault: rendition.isDefault, forced: rendition.forced,
                                   uri: track.playlistPath))
        }

        var attributes: [String]
        if let bandwidth = variant?.bandwidth {
            attributes = ["BANDWIDTH=\(bandwidth)"]
            if let average = variant?.averageBandwidth { attributes.append("AVERAGE-BANDWIDTH=\(average)") }
        } else {
            // BANDWIDTH is required (section 4.3.4.2) but the source has none (a media playlist,
            // or a variant without it): it is computed when every size is known, else the
            // AVERAGE-BANDWIDTH or 0, since with one variant nothing chooses by it.
            let rates = video.playlist.exactBytes == nil ? nil : video.playlist.bitRates
            let average = rates?.average ?? variant?.averageBandwidth
            attributes = ["BANDWIDTH=\(rates?.peak ?? average ?? 0)"]
            if let average { attributes.append("AVERAGE-BANDWIDTH=\(average)") }
        }
        if let variant {
            if let size = variant.resolution { attributes.append("RESOLUTION=\(size.width)x\(size.height)") }
            if !variant.codecs.isEmpty { attributes.append("CODECS=\(quoted(variant.codecs.joined(separator: ",")))") }
            if let rate = variant.frameRate { attributes.append("FRAME-RATE=\(PackageTrack.decimal(rate, places: 3))") }
            if !audio.isEmpty { attributes.append("AUDIO=\(quoted(audioGroup))") }
            if !subtitles.isEmpty { attributes.append("SUBTITLES=\(quoted(subtitlesGroup))") }
        }
        lines.append("#EXT-X-STREAM-INF:" + attributes.joined(separator: ","))
        lines.append(video.playlistPath)
        return lines.joined(separator: "\n") + "\n"
    }

    private static func mediaLine(_ rendition: Rendition, group: String, isDefault: Bool, forced: Bool?, uri: String) -> String {
        var attributes = ["TYPE=\(rendition.type.rawValue)", "GROUP-ID=\(quoted(group))"]
        if let language = rendition.language { attributes.append("LANGUAGE=\(quoted(language))") }
        attributes.append("NAME=\(quoted(rendition.name))")
        attributes.append("DEFAULT=\(isDefault ? "YES" : "NO")")
        // Section 4.3.4.1: AUTOSELECT must be YES when DEFAULT is.
        attributes.append("AUTOSELECT=\(isDefault || rendition.autoselect ? "YES" : "NO")")
        if let forced { attributes.append("FORCED=\(forced ? "YES" : "NO")") }
        attributes.append("URI=\(quoted(uri))")
        return "#EXT-X-MEDIA:" + attributes.joined(separator: ",")
    }

    /// A quoted-string may not hold a double quote, CR or LF (section 4.2); the parser never
    /// yields one, but a hand-made `Rendition` could.
    private static func quoted(_ text: String) -> String {
        "\"" + String(text.filter { $0 != "\"" && $0 != "\r" && $0 != "\n" && $0 != "\r\n" }) + "\""
    }
}
