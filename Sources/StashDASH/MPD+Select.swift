import StashCore

extension MPD {
    /// Chooses, in every period, the video representation, the audio and the text tracks
    /// `options` asks for, by the rules of an HLS master's choice: `maxHeight` first, then the
    /// largest `bandwidth` not above the limit, else the quality preset's lowest representation
    /// reaching its minimum, else the highest. An audio track is an adaptation set in one
    /// language, of which the highest bandwidth is taken (the lowest for `quality` low); with no
    /// language asked, the set with Role `main` (else the first) is. Text is kept only when asked.
    /// Throws `DASHError.Code.noSegments` naming what was asked and what is offered.
    package func select(_ options: HLSOptions) throws -> [DASHTrack] {
        var tracks: [DASHTrack] = []
        let prefix = { (period: Int) in self.periods.count > 1 ? "period\(period)/" : "" }
        for (index, period) in periods.enumerated() {
            let video = try Self.chooseVideo(period, options)
            if let video {
                tracks.append(DASHTrack(period: index, kind: .video, set: video.set, representation: video.representation,
                                        folder: prefix(index) + "video"))
            }
            var used: [String: Int] = [:]
            func folder(_ kind: String, _ set: AdaptationSet) -> String {
                let language = Self.folderName(set.lang)
                used[kind + language, default: 0] += 1
                let count = used[kind + language] ?? 1
                return prefix(index) + kind + "/" + language + (count > 1 ? "-\(count)" : "")
            }
            let audioSets = period.adaptationSets.filter { $0.kind == .audio && !$0.representations.isEmpty }
            let audio = options.audio.isEmpty ? Array((audioSets.first { $0.roles.contains("main") } ?? audioSets.first).map { [$0] } ?? [])
                : try Self.pick(options.audio, from: audioSets, kind: "audio")
            for set in audio {
                let ranked = set.representations.sorted { $0.bandwidth < $1.bandwidth }
                guard let representation = options.quality == .low ? ranked.first : ranked.last else { continue }
                tracks.append(DASHTrack(period: index, kind: .audio, set: set, representation: representation, folder: folder("audio", set)))
            }
            let textSets = period.adaptationSets.filter { $0.kind == .text && !$0.representations.isEmpty }
            for set in try Self.pick(options.subtitles, from: textSets, kind: "text") {
                tracks.append(DASHTrack(period: index, kind: .text, set: set, representation: set.representations[0],
                                        folder: folder("subtitles", set)))
            }
            if video == nil && audio.isEmpty {
                throw DASHError(.noSegments, "period \(index + 1) of the MPD has no video or audio representation to download")
            }
        }
        return tracks
    }

    private static func chooseVideo(_ period: Period, _ options: HLSOptions) throws -> (set: AdaptationSet, representation: Representation)? {
        let all = period.adaptationSets.filter { $0.kind == .video }.flatMap { set in set.representations.map { (set, $0) } }
        guard !all.isEmpty else { return nil }
        var candidates = all
        if let maxHeight = options.maxHeight {
            candidates = all.filter { ($0.1.height ?? 0) <= maxHeight }
            guard !candidates.isEmpty else {
                let smallest = all.compactMap(\.1.height).min().map { "; the smallest is \($0) pixels high" } ?? ""
                throw DASHError(.noSegments, "no video representation is at most \(maxHeight) pixels high\(smallest)")
            }
        }
        // Stable, so equal bandwidths keep the MPD's order.
        let ranked = candidates.enumerated().sorted { ($0.element.1.bandwidth, $0.offset) < ($1.element.1.bandwidth, $1.offset) }.map(\.element)
        guard let lowest = ranked.first, let highest = ranked.last else { return nil }
        if let limit = options.bandwidth { return ranked.last { $0.1.bandwidth <= limit } ?? lowest }
        if let minimum = options.quality.minimumBandwidth { return ranked.first { $0.1.bandwidth >= minimum } ?? highest }
        return highest
    }

    /// The sets `languages` names, in the order asked for, each once; `all` takes every one.
    private static func pick(_ languages: [String], from sets: [AdaptationSet], kind: String) throws -> [AdaptationSet] {
        if languages.isEmpty { return [] }
        if languages.contains(where: { $0.lowercased() == "all" }) { return sets }
        var chosen: [AdaptationSet] = []
        for language in languages {
            let matches = Self.matching(language, in: sets)
            guard !matches.isEmpty else {
                let offered = sets.map { $0.lang ?? "und" }
                let list = offered.isEmpty ? "none are offered" : "available: \(offered.joined(separator: ", "))"
                throw DASHError(.noSegments, "no \(kind) adaptation set has language '\(language)'; \(list)")
            }
            for match in matches where !chosen.contains(match) { chosen.append(match) }
        }
        return chosen
    }

    /// As for HLS renditions: tags compare case-insensitively, a bare language takes every
    /// regional form, and a regional one falls back to its language.
    private static func matching(_ language: String, in sets: [AdaptationSet]) -> [AdaptationSet] {
        let asked = language.lowercased()
        let primary = { (tag: String) in String(tag.prefix { $0 != "-" && $0 != "_" }) }
        let exact = sets.filter { set in
            guard let tag = set.lang?.lowercased() else { return false }
            return tag == asked || (primary(asked) == asked && primary(tag) == asked)
        }
        if !exact.isEmpty { return exact }
        return sets.filter { set in set.lang.map { primary($0.lowercased()) == primary(asked) } ?? false }
    }

    /// A language tag as a folder name: letters, digits and '-' only, `und` when absent.
    static func folderName(_ language: String?) -> String {
        let cleaned = String((language ?? "").prefix(35).filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        return cleaned.isEmpty ? "und" : cleaned
    }
}
