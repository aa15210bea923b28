import StashCore

extension MasterPlaylist {
    /// Chooses the variant and renditions `options` asks for.
    ///
    /// Variants higher than `maxHeight` are dropped first (one without RESOLUTION is kept: its
    /// height is unknown, and refusing it would refuse audio-only streams). Then `bandwidth`
    /// takes the largest BANDWIDTH not above it (the lowest if all are above); otherwise the
    /// quality preset takes the lowest variant reaching its minimum, else the highest.
    ///
    /// A variant without BANDWIDTH ranks after every variant with one: nothing says how it
    /// compares, so it is chosen only when no variant with a BANDWIDTH is left, and then the
    /// first listed (the one players start with) is.
    /// Throws `HLSError.Code.noMatch` naming what was asked and what is offered.
    package func select(_ options: HLSOptions) throws -> RenditionSelection {
        guard !variants.isEmpty else {
            throw HLSError(.noMatch, line: nil, "the master playlist lists no variants (EXT-X-STREAM-INF)")
        }
        var candidates = variants
        if let maxHeight = options.maxHeight {
            candidates = variants.filter { ($0.resolution?.height ?? 0) <= maxHeight }
            guard !candidates.isEmpty else {
                let smallest = variants.compactMap(\.resolution).min { $0.height < $1.height }
                let offered = smallest.map { "; the smallest is \($0.width)x\($0.height)" } ?? ""
                throw HLSError(.noMatch, line: nil, "no variant is at most \(maxHeight) pixels high\(offered)")
            }
        }
        // Stable, so equal bandwidths keep the playlist's order.
        let ranked = candidates.enumerated().compactMap { index, variant in variant.bandwidth.map { ($0, index, variant) } }
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }
        let variant: Variant
        if let lowest = ranked.first, let highest = ranked.last {
            if let limit = options.bandwidth {
                variant = ranked.last { $0.0 <= limit }?.2 ?? lowest.2
            } else if let minimum = options.quality.minimumBandwidth {
                variant = ranked.first { $0.0 >= minimum }?.2 ?? highest.2
            } else {
                variant = highest.2
            }
        } else {
            variant = candidates[0]
        }

        let subtitles = try pick(options.subtitles, from: group(.subtitles, variant.subtitlesGroup), kind: "subtitle")
        let audioGroup = group(.audio, variant.audioGroup)
        let audio: [Rendition]
        if options.audio.isEmpty {
            audio = Self.defaultAudio(audioGroup)
        } else {
            audio = try pick(options.audio, from: audioGroup, kind: "audio")
        }
        return RenditionSelection(variant: variant, audio: audio, subtitles: subtitles)
    }

    private func group(_ type: Rendition.MediaType, _ id: String?) -> [Rendition] {
        guard let id else { return [] }
        return renditions.filter { $0.type == type && $0.groupID == id }
    }

    /// With no language asked for, the group's DEFAULT=YES rendition plays. A default without
    /// URI is carried inside the variant (section 4.3.4.2.1), so nothing separate is needed.
    private static func defaultAudio(_ group: [Rendition]) -> [Rendition] {
        if let preferred = group.first(where: \.isDefault) {
            return preferred.uri == nil ? [] : [preferred]
        }
        return group.first { $0.uri != nil }.map { [$0] } ?? []
    }

    /// The renditions with a URI that `languages` names, in the order asked for, each once.
    private func pick(_ languages: [String], from group: [Rendition], kind: String) throws -> [Rendition] {
        let offered = group.filter { $0.uri != nil }
        if languages.isEmpty { return [] }
        if languages.contains(where: { $0.lowercased() == "all" }) { return offered }
        var chosen: [Rendition] = []
        for language in languages {
            let matches = Self.matching(language, in: offered)
            guard !matches.isEmpty else {
                let available = offered.map { rendition in
                    "\(rendition.language.flatMap { $0.isEmpty ? nil : $0 } ?? "und") (\(rendition.name))"
                }
                let list = available.isEmpty ? "none are offered" : "available: \(available.joined(separator: ", "))"
                throw HLSError(.noMatch, line: nil, "no \(kind) rendition has language '\(language)'; \(list)")
            }
            for match in matches where !chosen.contains(match) { chosen.append(match) }
        }
        return chosen
    }

    /// RFC 5646 tags compare case-insensitively. A bare language ("en") takes every regional
    /// form ("en-US", "en-GB"); a regional request takes its exact tag, or when the stream has
    /// no such tag, any rendition of the same language, since "en-US" subtitles are better
    /// than an error when the stream labels them "en".
    static func matching(_ language: String, in renditions: [Rendition]) -> [Rendition] {
        let asked = language.lowercased()
        let askedPrimary = primarySubtag(asked)
        let exact = renditions.filter { rendition in
            guard let tag = rendition.language?.lowercased() else { return false }
            return tag == asked || (askedPrimary == asked && primarySubtag(tag) == asked)
        }
        if !exact.isEmpty { return exact }
        return renditions.filter { rendition in
            rendition.language.map { primarySubtag($0.lowercased()) == askedPrimary } ?? false
        }
    }

    private static func primarySubtag(_ tag: String) -> String {
        String(tag.prefix { $0 != "-" && $0 != "_" })
    }
}
