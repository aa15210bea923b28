/// Writes the package's own MPD: static, one AdaptationSet per chosen track, each with a
/// SegmentTemplate naming the local files (`video/seg$Number%05d$.m4s`) and a SegmentTimeline
/// in microseconds that gives every kept segment its time, so ffmpeg and GStreamer play the
/// folder offline. A track that is one whole file (a WebVTT file) is named by its BaseURL.
struct LocalMPD {
    /// Microseconds: fine enough for any frame rate, and a week fits in 40 bits.
    static let timescale = 1_000_000.0

    var duration: Double
    private var sets: [Int: [String]] = [:]

    init(duration: Double) {
        self.duration = duration
    }

    mutating func add(_ track: DASHTrack, period: Period, initialization: String?, media: [DASHSegment], mediaExtension: String) {
        let representation = track.representation
        var set = "    <AdaptationSet id=\"\(sets[track.period, default: []].count)\" contentType=\"\(track.kind.rawValue)\""
        if let mime = representation.mimeType { set += " mimeType=\"\(Self.escaped(mime))\"" }
        if let lang = track.set.lang { set += " lang=\"\(Self.escaped(lang))\"" }
        set += ">\n"
        for role in track.set.roles { set += "      <Role schemeIdUri=\"urn:mpeg:dash:role:2011\" value=\"\(Self.escaped(role))\"/>\n" }
        // The segments are kept as fetched, encrypted: a player needs to know by what.
        for protection in track.set.protections {
            set += "      <ContentProtection schemeIdUri=\"\(Self.escaped(protection.schemeIdUri))\""
            if let value = protection.value { set += " value=\"\(Self.escaped(value))\"" }
            if let kid = protection.defaultKID { set += " cenc:default_KID=\"\(Self.escaped(kid))\"" }
            set += "/>\n"
        }
        var attributes = "id=\"\(Self.escaped(representation.id))\" bandwidth=\"\(representation.bandwidth)\""
        if let width = representation.width, let height = representation.height { attributes += " width=\"\(width)\" height=\"\(height)\"" }
        if let rate = representation.frameRate { attributes += " frameRate=\"\(Self.frameRate(rate))\"" }
        if let codecs = representation.codecs { attributes += " codecs=\"\(Self.escaped(codecs))\"" }
        set += "      <Representation \(attributes)>\n"
        if initialization == nil && media.count == 1 && track.kind == .text {
            set += "        <BaseURL>\(Self.escaped(track.folder + "/" + DASHPackage.segmentName(0, mediaExtension)))</BaseURL>\n"
        } else {
            let template = track.folder + "/seg$Number%05d$." + mediaExtension
            set += "        <SegmentTemplate timescale=\"\(Int(Self.timescale))\" startNumber=\"0\" media=\"\(Self.escaped(template))\""
            if let initialization { set += " initialization=\"\(Self.escaped(initialization))\"" }
            set += ">\n          <SegmentTimeline>\n"
            set += Self.timeline(media)
            set += "          </SegmentTimeline>\n        </SegmentTemplate>\n"
        }
        set += "      </Representation>\n    </AdaptationSet>\n"
        sets[track.period, default: []].append(set)
    }

    func text(periods: [Period]) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:cenc="urn:mpeg:cenc:2013" type="static" profiles="urn:mpeg:dash:profile:isoff-live:2011" \
            minBufferTime="PT2S" mediaPresentationDuration="\(Self.duration(duration))">

            """
        for (index, period) in periods.enumerated() {
            guard let sets = sets[index] else { continue }
            out += "  <Period id=\"\(index)\" start=\"\(Self.duration(period.start))\" duration=\"\(Self.duration(period.duration))\">\n"
            out += sets.joined()
            out += "  </Period>\n"
        }
        return out + "</MPD>\n"
    }

    /// `S` runs: consecutive segments of one length, each starting where the last ended, share one.
    private static func timeline(_ media: [DASHSegment]) -> String {
        var out = ""
        var runStart: UInt64 = 0
        var runDuration: UInt64 = 0
        var repeats = -1
        var next: UInt64 = .max
        func flush() {
            guard repeats >= 0 else { return }
            out += "            <S t=\"\(runStart)\" d=\"\(runDuration)\"" + (repeats > 0 ? " r=\"\(repeats)\"" : "") + "/>\n"
        }
        for segment in media {
            let start = ticks(segment.start)
            let length = max(ticks(segment.start + segment.duration) - start, 1)
            if start == next && length == runDuration {
                repeats += 1
            } else {
                flush()
                (runStart, runDuration, repeats) = (start, length, 0)
            }
            next = start + length
        }
        flush()
        return out
    }

    /// Seconds as microseconds; a segment before the period's start counts from 0. The
    /// parser keeps every time within a week, far inside 64 bits.
    private static func ticks(_ seconds: Double) -> UInt64 { UInt64(max(0, (seconds * timescale).rounded())) }

    static func duration(_ seconds: Double) -> String {
        let micro = ticks(seconds)
        return "PT\(micro / 1_000_000).\(String(repeating: "0", count: 6 - String(micro % 1_000_000).count) + String(micro % 1_000_000))S"
    }

    static func frameRate(_ rate: Double) -> String {
        if rate == rate.rounded() { return String(Int(rate)) }
        let ntsc = rate * 1001
        if abs(ntsc - ntsc.rounded()) < 0.01 { return "\(Int(ntsc.rounded()))/1001" }
        return "\(Int((rate * 1000).rounded()))/1000"
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }
}
