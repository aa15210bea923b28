import Foundation

extension SegmentAddressing {
    /// Reads the addressing of a representation from `levels` (its own element, its adaptation
    /// set's, its period's): the kind is that of the nearest level with one, and the attributes
    /// of that kind merge from all levels. A representation with none is one file, its BaseURL.
    static func parse(levels: [MPDElement], context: inout SegmentContext) throws -> SegmentAddressing {
        let kind = levels.lazy.compactMap { level in
            ["SegmentTemplate", "SegmentList", "SegmentBase"].first { level.first($0) != nil }
        }.first
        let found = SegmentLevels(elements: levels.compactMap { level in kind.flatMap { level.first($0) } })
        switch kind {
        case "SegmentTemplate": return .template(try template(found, context: &context))
        case "SegmentList": return .list(try list(found, context: &context))
        case "SegmentBase": return .base(try base(found, context: context))
        default:
            let whole = DASHSegment(url: context.baseURL.absoluteString, range: nil, start: 0, duration: context.periodDuration)
            return .list(SegmentList(initialization: nil, media: [whole]))
        }
    }

    private static func timescale(_ levels: SegmentLevels) throws -> UInt64 {
        let timescale = try levels.unsigned("timescale", max: UInt64(UInt32.max)) ?? 1
        guard timescale > 0 else {
            throw DASHError(.invalidAttribute, "\(levels.owner("timescale")?.label ?? "timescale") @timescale is 0; it must be from 1 to \(UInt32.max)")
        }
        return timescale
    }

    private static func template(_ levels: SegmentLevels, context: inout SegmentContext) throws -> SegmentTemplate {
        guard let media = levels.attribute("media") else {
            throw DASHError(.noSegments, "\(levels.elements[0].label) has no @media template")
        }
        let mediaTemplate = try URLTemplate(parsing: media.value, field: "\(media.element.label) @media")
        var initialization: URLTemplate?
        if let initText = levels.attribute("initialization") {
            initialization = try URLTemplate(parsing: initText.value, field: "\(initText.element.label) @initialization")
        } else if let element = levels.child("Initialization"), let source = element["sourceURL"] {
            initialization = try URLTemplate(parsing: source, field: "\(element.label) @sourceURL")
        }
        if let initialization, initialization.namesSegment {
            throw DASHError(.invalidTemplate, "the initialization template of \(levels.elements[0].label) names $Number$ or $Time$, which only media segments have")
        }
        let scale = try timescale(levels)
        let offset = try levels.unsigned("presentationTimeOffset") ?? 0
        let startNumber = try levels.unsigned("startNumber") ?? 1
        let timing: SegmentTemplate.Timing
        let count: Int
        if let timeline = levels.child("SegmentTimeline") {
            let resolved = try resolvedTimeline(timeline, timescale: scale, offset: offset, context: &context)
            (timing, count) = (.timeline(resolved.runs), resolved.count)
        } else if let ticks = try levels.unsigned("duration") {
            count = try durationCount(ticks: ticks, timescale: scale, offset: offset, levels: levels, context: context)
            timing = .duration(ticks)
        } else {
            throw DASHError(.noSegments, "\(levels.elements[0].label) has neither @duration nor a SegmentTimeline")
        }
        guard startNumber <= UInt64.max - UInt64(count) else {
            throw DASHError(.invalidAttribute, "\(levels.owner("startNumber")?.label ?? "SegmentTemplate") @startNumber \(startNumber) with \(count) segments passes \(UInt64.max)")
        }
        return SegmentTemplate(media: mediaTemplate, initialization: initialization, baseURL: context.baseURL.absoluteString,
                               representationID: context.representationID, bandwidth: context.bandwidth, startNumber: startNumber,
                               timescale: scale, presentationTimeOffset: offset, timing: timing, count: count,
                               periodDuration: context.periodDuration)
    }

    /// Segments of `ticks` each until the period's end; the last one may be shorter.
    private static func durationCount(ticks: UInt64, timescale: UInt64, offset: UInt64, levels: SegmentLevels,
                                      context: SegmentContext) throws -> Int {
        let label = levels.owner("duration")?.label ?? "SegmentTemplate"
        guard ticks > 0 else { throw DASHError(.invalidDuration, "\(label) @duration is 0") }
        let exact = context.periodDuration * Double(timescale) / Double(ticks)
        let count = exact.rounded(.up)
        guard count <= Double(DASHError.maxSegments) else {
            throw DASHError(.tooMany, "\(label) makes \(exact) segments of \(ticks)/\(timescale) s in a \(context.periodDuration) s period; the limit is \(DASHError.maxSegments) per representation")
        }
        let whole = max(Int(count), 1)
        // The last segment's start time must fit the 64 bits of $Time$.
        let (span, overflow) = UInt64(whole).multipliedReportingOverflow(by: ticks)
        guard !overflow, offset <= UInt64.max - span else {
            throw DASHError(.invalidDuration, "\(label) @duration \(ticks) times \(whole) segments passes \(UInt64.max) ticks")
        }
        return whole
    }

    private static func resolvedTimeline(_ timeline: MPDElement, timescale: UInt64, offset: UInt64,
                                         context: inout SegmentContext) throws -> (runs: [TimelineRun], count: Int) {
        let key = SegmentContext.TimelineKey(element: timeline.index, timescale: timescale, presentationTimeOffset: offset)
        if let known = context.timelines[key] { return known }
        let periodEnd = Double(offset) + context.periodDuration * Double(timescale)
        let resolved = try TimelineRun.resolve(timeline, periodEnd: periodEnd)
        context.timelines[key] = resolved
        return resolved
    }

    private static func list(_ levels: SegmentLevels, context: inout SegmentContext) throws -> SegmentList {
        let scale = try timescale(levels)
        let offset = try levels.unsigned("presentationTimeOffset") ?? 0
        guard let owner = levels.elements.first(where: { $0.first("SegmentURL") != nil }) else {
            throw DASHError(.noSegments, "\(levels.elements[0].label) has no SegmentURL")
        }
        let urls = owner.all("SegmentURL")
        guard urls.count <= DASHError.maxSegments else {
            throw DASHError(.tooMany, "\(owner.label) has \(urls.count) SegmentURL; the limit is \(DASHError.maxSegments) per representation")
        }
        // Segment times come from a timeline if there is one, else from @duration; a list with
        // neither is one segment (the whole period).
        var durations: [(start: Double, duration: Double)] = []
        if let timeline = levels.child("SegmentTimeline") {
            let resolved = try resolvedTimeline(timeline, timescale: scale, offset: offset, context: &context)
            for run in resolved.runs {
                for step in 0..<run.count where durations.count < urls.count {
                    let start = run.start + UInt64(step) * run.duration
                    durations.append(((Double(start) - Double(offset)) / Double(scale), Double(run.duration) / Double(scale)))
                }
            }
        } else if let ticks = try levels.unsigned("duration") {
            guard ticks > 0 else { throw DASHError(.invalidDuration, "\(levels.owner("duration")?.label ?? owner.label) @duration is 0") }
            let seconds = Double(ticks) / Double(scale)
            durations = urls.indices.map { (Double($0) * seconds, seconds) }
        } else if urls.count == 1 {
            durations = [(0, context.periodDuration)]
        }
        guard durations.count == urls.count else {
            throw DASHError(.noSegments, "\(owner.label) lists \(urls.count) SegmentURL but its timing gives \(durations.count) segments")
        }
        var media: [DASHSegment] = []
        media.reserveCapacity(urls.count)
        for (url, time) in zip(urls, durations) {
            let resolved = try url["media"].map { try MPDURL.resolve($0, against: context.baseURL, field: "\(url.label) @media") } ?? context.baseURL
            media.append(DASHSegment(url: resolved.absoluteString, range: try MediaRange.parse(url, "mediaRange"),
                                     start: time.start, duration: time.duration))
        }
        return SegmentList(initialization: try initialization(levels, context: context), media: media)
    }

    private static func initialization(_ levels: SegmentLevels, context: SegmentContext) throws -> DASHSegment? {
        guard let element = levels.child("Initialization") else { return nil }
        let url = try element["sourceURL"].map { try MPDURL.resolve($0, against: context.baseURL, field: "\(element.label) @sourceURL") } ?? context.baseURL
        return DASHSegment(url: url.absoluteString, range: try MediaRange.parse(element, "range"), start: 0, duration: 0)
    }

    private static func base(_ levels: SegmentLevels, context: SegmentContext) throws -> SegmentBase {
        let initRange = try levels.child("Initialization").flatMap { try MediaRange.parse($0, "range") }
        let indexRange = try levels.owner("indexRange").flatMap { try MediaRange.parse($0, "indexRange") }
        return SegmentBase(url: context.baseURL.absoluteString, initialization: initRange, indexRange: indexRange,
                           timescale: try timescale(levels), presentationTimeOffset: try levels.unsigned("presentationTimeOffset") ?? 0)
    }
}
