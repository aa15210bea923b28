import ArgumentParser
import StashClient

extension TextTrack {
    /// The keys of a `--text-track` value.
    static let specKeys = ["uri", "lang", "title", "type"]

    /// Reads `uri=URL,lang=es[,title=Español][,type=vtt|srt]`. A comma starts the next field
    /// only where one of the keys and `=` follow it, so a URL or a title may hold commas. The
    /// values are the daemon's to check (it names the one it refuses).
    init(spec: String) throws {
        var segments: [Substring] = []
        var start = spec.startIndex
        var index = spec.startIndex
        while index < spec.endIndex {
            let next = spec.index(after: index)
            if spec[index] == ",", Self.specKeys.contains(where: { spec[next...].hasPrefix($0 + "=") }) {
                segments.append(spec[start..<index])
                start = next
            }
            index = next
        }
        segments.append(spec[start...])
        var fields: [String: String] = [:]
        for segment in segments {
            guard let equals = segment.firstIndex(of: "="), Self.specKeys.contains(String(segment[..<equals])) else {
                throw ValidationError("--text-track '\(spec)': '\(segment)' is not key=value with a key of \(Self.specKeys.joined(separator: ", "))")
            }
            let key = String(segment[..<equals])
            guard fields[key] == nil else { throw ValidationError("--text-track '\(spec)': \(key) is given twice") }
            fields[key] = String(segment[segment.index(after: equals)...])
        }
        guard let uri = fields["uri"], !uri.isEmpty else { throw ValidationError("--text-track '\(spec)': give uri=URL") }
        guard let language = fields["lang"], !language.isEmpty else { throw ValidationError("--text-track '\(spec)': give lang=TAG, e.g. lang=es") }
        self.init(uri: uri, language: language, title: fields["title"] ?? "", type: fields["type"] ?? "")
    }
}
