import Foundation

extension Period {
    /// Reads a period's adaptation sets; `representations` counts those of all periods so far,
    /// against `DASHError.maxRepresentations`.
    init(parsing element: MPDElement, start: Double, duration: Double, base: URL, representations: inout Int) throws {
        let periodBase = try MPDURL.base(of: element, against: base)
        var context = SegmentContext(periodDuration: duration, baseURL: periodBase, representationID: "", bandwidth: 0)
        var sets: [AdaptationSet] = []
        for set in element.all("AdaptationSet") {
            if set["xlink:href"] != nil {
                throw DASHError(.unsupported, "\(set.label) is remote (xlink:href), which stash does not fetch")
            }
            let setBase = try MPDURL.base(of: set, against: periodBase)
            var parsed: [Representation] = []
            for representation in set.all("Representation") {
                representations += 1
                guard representations <= DASHError.maxRepresentations else {
                    throw DASHError(.tooMany, "the MPD has more than \(DASHError.maxRepresentations) representations (at \(representation.label))")
                }
                context.baseURL = try MPDURL.base(of: representation, against: setBase)
                parsed.append(try Representation(parsing: representation, in: set, period: element, context: &context))
            }
            let component = set.first("ContentComponent")
            let first = set.first("Representation")
            let kind = MediaKind.of(contentType: set["contentType"] ?? component?["contentType"],
                                    mimeType: set["mimeType"] ?? first?["mimeType"], codecs: set["codecs"] ?? first?["codecs"])
            let protections = (set.all("ContentProtection") + (first?.all("ContentProtection") ?? [])).compactMap { element in
                element["schemeIdUri"].map {
                    ContentProtection(schemeIdUri: $0.trimmingSpaces.lowercased(), value: element["value"], defaultKID: element["cenc:default_KID"])
                }
            }
            sets.append(AdaptationSet(id: set["id"], kind: kind, lang: set["lang"] ?? component?["lang"],
                                      roles: (set.all("Role") + (component?.all("Role") ?? [])).compactMap { $0["value"] },
                                      label: set.first("Label")?.text.trimmingSpaces ?? set["label"],
                                      protections: protections, representations: parsed))
        }
        self.init(id: element["id"], start: start, duration: duration, adaptationSets: sets)
    }
}

extension Representation {
    init(parsing element: MPDElement, in set: MPDElement, period: MPDElement, context: inout SegmentContext) throws {
        guard let id = element["id"]?.trimmingSpaces, !id.isEmpty else {
            throw DASHError(.invalidAttribute, "\(element.label) has no @id")
        }
        guard let bandwidth = try MPDValue.unsigned(element, "bandwidth") else {
            throw DASHError(.invalidAttribute, "\(element.label) has no @bandwidth")
        }
        let maxSide: UInt64 = 65_535
        let width = try MPDValue.unsigned(element, "width", max: maxSide) ?? MPDValue.unsigned(set, "width", max: maxSide)
        let height = try MPDValue.unsigned(element, "height", max: maxSide) ?? MPDValue.unsigned(set, "height", max: maxSide)
        context.representationID = id
        context.bandwidth = bandwidth
        let addressing = try SegmentAddressing.parse(levels: [element, set, period], context: &context)
        self.init(id: id, bandwidth: bandwidth, width: width.map { Int($0) }, height: height.map { Int($0) },
                  frameRate: try MPDValue.frameRate(element) ?? MPDValue.frameRate(set),
                  codecs: element["codecs"] ?? set["codecs"], mimeType: element["mimeType"] ?? set["mimeType"],
                  baseURL: context.baseURL.absoluteString, addressing: addressing)
    }
}
