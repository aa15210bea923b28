import Foundation

extension MasterPlaylist {
    /// Parses a master playlist as players read it (see `MediaPlaylist.init(parsing:)`): a URI
    /// line without EXT-X-STREAM-INF, or an EXT-X-STREAM-INF without a URI line, is skipped and
    /// a variant without BANDWIDTH is kept with its bandwidth unknown, each with a warning.
    init(parsing text: PlaylistText) throws {
        var variants: [Variant] = []
        var renditions: [Rendition] = []
        var independentSegments = false
        var warnings = PlaylistWarnings()
        // An EXT-X-STREAM-INF describes the URI line that follows it.
        var pending: (line: Int, variant: Variant)?

        for (number, line) in text.lines {
            switch line {
            case .uri(let uri):
                guard var variant = pending?.variant else {
                    warnings.add(line: number, "'\(uri.prefix(200))' is not preceded by EXT-X-STREAM-INF; it is ignored, as players ignore it")
                    continue
                }
                variant.uri = try text.resolve(uri, line: number, field: "variant URI")
                variants.append(variant)
                pending = nil
            case .tag(let name, let value):
                switch name {
                case "#EXT-X-STREAM-INF":
                    if let pending {
                        warnings.add(line: pending.line, "EXT-X-STREAM-INF has no URI line before the next EXT-X-STREAM-INF (line \(number)); it is ignored")
                    }
                    let attributes = try AttributeList(value, tag: name, line: number)
                    let variant = try Self.variant(attributes)
                    if variant.bandwidth == nil {
                        warnings.add(line: number, "EXT-X-STREAM-INF has no BANDWIDTH; the variant's bandwidth is unknown, and it is chosen only when no variant with a BANDWIDTH is left")
                    }
                    pending = (number, variant)
                case "#EXT-X-MEDIA":
                    let attributes = try AttributeList(value, tag: name, line: number)
                    renditions.append(try Self.rendition(attributes, text: text))
                case "#EXT-X-INDEPENDENT-SEGMENTS":
                    independentSegments = true
                default:
                    // Unknown and unused tags are skipped, as section 6.3.1 asks of clients.
                    continue
                }
            }
        }
        if let pending {
            warnings.add(line: pending.line, "EXT-X-STREAM-INF has no URI line after it; it is ignored")
        }
        self.init(variants: variants, renditions: renditions, independentSegments: independentSegments, warnings: warnings.lines)
    }

    /// The variant without its URI, which the next line supplies.
    private static func variant(_ attributes: AttributeList) throws -> Variant {
        let codecs = try attributes.quotedString("CODECS").map {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return Variant(
            uri: "",
            bandwidth: try attributes.decimalInteger("BANDWIDTH"),
            averageBandwidth: try attributes.decimalInteger("AVERAGE-BANDWIDTH"),
            resolution: try attributes.resolution("RESOLUTION"),
            codecs: codecs ?? [],
            frameRate: try attributes.decimalFloat("FRAME-RATE"),
            audioGroup: try attributes.quotedString("AUDIO"),
            subtitlesGroup: try attributes.quotedString("SUBTITLES"))
    }

    private static func rendition(_ attributes: AttributeList, text: PlaylistText) throws -> Rendition {
        let typeName = try attributes.required("TYPE", attributes.enumerated)
        guard let type = Rendition.MediaType(rawValue: String(typeName)) else {
            throw HLSError(.invalidAttribute, line: attributes.line,
                           "EXT-X-MEDIA TYPE '\(typeName.prefix(80))' is not AUDIO, VIDEO, SUBTITLES or CLOSED-CAPTIONS")
        }
        let uri = try attributes.quotedString("URI")
        // Section 4.3.4.1: subtitles live only in their own playlist, captions only inside the video.
        if type == .subtitles, uri == nil {
            throw HLSError(.invalidAttribute, line: attributes.line, "EXT-X-MEDIA TYPE=SUBTITLES has no URI attribute; it is required")
        }
        if type == .closedCaptions, uri != nil {
            throw HLSError(.invalidAttribute, line: attributes.line, "EXT-X-MEDIA TYPE=CLOSED-CAPTIONS must not have a URI attribute")
        }
        return Rendition(
            type: type,
            groupID: try attributes.required("GROUP-ID", attributes.quotedString),
            language: try attributes.quotedString("LANGUAGE"),
            name: try attributes.required("NAME", attributes.quotedString),
            isDefault: try attributes.flag("DEFAULT"),
            autoselect: try attributes.flag("AUTOSELECT"),
            forced: try attributes.flag("FORCED"),
            uri: try uri.map { try text.resolve($0[...], line: attributes.line, field: "EXT-X-MEDIA URI") })
    }
}
