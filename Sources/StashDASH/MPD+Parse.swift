import Foundation

extension MPD {
    /// Reads a static MPD fetched from `url`, resolving every URL against it. The size is
    /// checked before libxml2 reads a byte; a dynamic MPD is refused as live.
    package static func parse(_ bytes: [UInt8], url: String) throws -> MPD {
        guard let base = URL(string: url), MPDURL.isHTTP(base) else {
            throw DASHError(.invalidURI, "the MPD's URL '\(url.prefix(200))' is not an absolute http(s) URL")
        }
        let root = try MPDReader.read(bytes)
        guard root.name == "MPD" else {
            throw DASHError(.notMPD, "the root element is <\(root.name.prefix(60))>; an MPD's is <MPD>")
        }
        switch root["type"]?.trimmingSpaces ?? "static" {
        case "static": break
        case "dynamic":
            throw DASHError(.unsupported, "the MPD is dynamic (a live presentation); stash keeps only static (on-demand) MPDs offline")
        case let other:
            throw DASHError(.invalidAttribute, "\(root.label) @type '\(other.prefix(40))' is neither static nor dynamic")
        }
        let mpdBase = try MPDURL.base(of: root, against: base)
        let declared = try MPDValue.duration(root, "mediaPresentationDuration")
        let elements = root.all("Period")
        guard !elements.isEmpty else { throw DASHError(.noSegments, "the MPD has no Period") }
        guard elements.count <= DASHError.maxPeriods else {
            throw DASHError(.tooMany, "the MPD has \(elements.count) periods; the limit is \(DASHError.maxPeriods)")
        }
        var periods: [Period] = []
        var start = 0.0
        var representations = 0
        for (position, element) in elements.enumerated() {
            if element["xlink:href"] != nil {
                throw DASHError(.unsupported, "\(element.label) is remote (xlink:href), which stash does not fetch")
            }
            let periodStart = try MPDValue.duration(element, "start") ?? start
            guard periodStart >= start else {
                throw DASHError(.invalidDuration, "\(element.label) starts at \(periodStart) s, before the previous period's end at \(start) s")
            }
            let end: Double
            if let duration = try MPDValue.duration(element, "duration") {
                end = periodStart + duration
            } else if position + 1 < elements.count, let next = try MPDValue.duration(elements[position + 1], "start") {
                end = next
            } else if position + 1 == elements.count, let declared {
                end = declared
            } else {
                throw DASHError(.invalidDuration, "\(element.label) has no @duration and nothing after it says where it ends")
            }
            guard end > periodStart, end <= DASHError.maxPresentationSeconds else {
                throw DASHError(.invalidDuration, "\(element.label) runs from \(periodStart) s to \(end) s; it must end after it starts and by \(DASHError.maxPresentationSeconds) s")
            }
            let period = try Period(parsing: element, start: periodStart, duration: end - periodStart, base: mpdBase,
                                    representations: &representations)
            periods.append(period)
            start = end
        }
        return MPD(duration: declared ?? start, periods: periods)
    }
}
