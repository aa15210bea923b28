import StashCore

extension ManifestInfo {
    /// What an MPD offers, as `stash plan` shows it: each video representation as a variant
    /// (with its size over the whole presentation, or over `start`..`end`), each audio and text
    /// adaptation set as a rendition. The first period's choice stands for all: periods of one
    /// presentation offer the same representations in practice.
    /// `indexes`: the `sidx` bytes of SegmentBase representations, by `DASHPackage.indexKey`;
    /// one whose index is given is sized exactly, as a SegmentList of byte ranges is.
    package init(mpd: MPD, start: Double? = nil, end: Double? = nil, indexes: [String: [UInt8]] = [:]) throws {
        var kept = mpd.duration
        var range: (Double, Double)?
        if start != nil || end != nil {
            let first = start ?? 0
            let last = min(end ?? mpd.duration, mpd.duration)
            guard first >= 0, first < mpd.duration, last > first else {
                throw DASHError(.invalidDuration, "the range \(first)-\(last) s is not inside the presentation, which lasts \(mpd.duration) s")
            }
            kept = last - first
            range = (first, last)
        }
        let period = mpd.periods[0]
        var variants: [VariantInfo] = []
        for set in period.adaptationSets where set.kind == .video {
            for representation in set.representations {
                var bytes = Int64(clamping: UInt64(min(Double(representation.bandwidth) * kept / 8, 9e18)))
                // A SegmentList whose every piece is a byte range says its size exactly.
                let exact = range == nil ? Self.exactBytes(representation, indexes: indexes) : nil
                if let exact { bytes = exact }
                variants.append(VariantInfo(
                    uri: representation.baseURL + "#" + representation.id, bandwidth: representation.bandwidth, width: representation.width,
                    height: representation.height, codecs: representation.codecs.map { [$0] } ?? [], frameRate: representation.frameRate,
                    encryption: set.protections.isEmpty ? [] : ["CENC"], estimatedBytes: bytes, sizeIsExact: exact != nil, duration: kept))
            }
        }
        func rendition(_ set: AdaptationSet) -> RenditionInfo {
            let language = set.lang ?? "und"
            let name = set.label ?? language + (set.roles.isEmpty ? "" : " (\(set.roles.joined(separator: ", ")))")
            return RenditionInfo(groupID: set.id ?? set.kind.rawValue, language: language, name: name, isDefault: set.roles.contains("main"),
                                 forced: set.roles.contains("forced-subtitle"), uri: set.representations.first?.baseURL ?? "")
        }
        self.init(variants: variants, audio: period.adaptationSets.filter { $0.kind == .audio }.map(rendition),
                  subtitles: period.adaptationSets.filter { $0.kind == .text }.map(rendition), duration: mpd.duration,
                  warnings: mpd.periods.count > 1 ? ["the MPD has \(mpd.periods.count) periods; the representations of the first are shown"] : [],
                  start: range?.0, end: range?.1)
    }

    /// The sum of the ranges (initialization and media) of a SegmentList, or of a SegmentBase
    /// read through its index, when every piece is one.
    private static func exactBytes(_ representation: Representation, indexes: [String: [UInt8]]) -> Int64? {
        let list: SegmentList
        switch representation.addressing {
        case .list(let given):
            list = given
        case .base:
            guard let request = representation.indexRequest, indexes[DASHPackage.indexKey(url: request.url, range: request.range)] != nil,
                let read = try? DASHPackage.segments(of: representation, indexes: indexes)
            else { return nil }
            list = read
        case .template:
            return nil
        }
        let pieces = (list.initialization.map { [$0] } ?? []) + list.media
        guard pieces.allSatisfy({ $0.range != nil }) else { return nil }
        return pieces.reduce(Int64(0)) { $0.addingSaturating(Int64(clamping: $1.range?.length ?? 0)) }
    }
}
