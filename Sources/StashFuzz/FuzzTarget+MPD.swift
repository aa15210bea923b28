#if DEBUG
import StashDASH

extension FuzzTarget {
    /// Expands at most this many representations of an MPD: each may have 100,000 segments,
    /// and the fuzzer wants many inputs a second, not one MPD at its limits.
    private static let expandedRepresentations = 4

    static func mpd(_ bytes: UnsafeRawBufferPointer) {
        let input = Array(bytes)
        // The same bytes as a sidx box, as a SegmentBase representation's index would be read.
        _ = try? SegmentIndex(parsing: input, offset: 1000, presentationTimeOffset: 0)
        _ = try? SegmentIndex(parsing: input, offset: UInt64(Int64.max) - 10, presentationTimeOffset: .max)
        guard let mpd = try? MPD.parse(input, url: "https://cdn.example.com/vod/manifest.mpd") else { return }
        var expanded = 0
        for period in mpd.periods {
            for set in period.adaptationSets {
                for representation in set.representations where expanded < expandedRepresentations {
                    expanded += 1
                    switch representation.addressing {
                    case .template(let template): _ = try? template.segments()
                    case .list: break
                    case .base(let base): _ = try? base.segments(index: input)
                    }
                }
            }
        }
    }
}
#endif
