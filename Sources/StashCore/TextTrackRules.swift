import Foundation

/// The checks on side-loaded text tracks, in requests and in registry rows. Each error names
/// the field (`text_tracks[2].lang`), the value and the rule or limit.
package enum TextTrackRules {
    package static let maxTracks = 32
    /// As long as HLS rendition languages may be.
    package static let maxLanguageBytes = 35
    package static let maxTitleLength = 256
    /// The folder of the asset the track files go in.
    package static let folder = "subtitles"

    /// The tracks `specs` add to a download that has `existing` tracks and `files` (all its
    /// files, the tracks' own included): each checked, its type and path filled in. One that
    /// is already there (`TextTrack.isSame`), or given twice, is skipped, so adding the same
    /// tracks again adds nothing. The count limit applies to the download's tracks as they
    /// will be. A track's path is `subtitles/<lang>.<type>`; a second track of one language
    /// is `<lang>-2`, and so on, never a path a file of the download has.
    package static func added(_ specs: [TextTrack], to existing: [TextTrack], files: [DownloadFile], field: String = "text_tracks") throws -> [TextTrack] {
        // Before anything else: the duplicate check below compares tracks pairwise.
        guard specs.count <= maxTracks else {
            throw StashError.invalidArgument("\(field) has \(specs.count) entries; the limit is \(maxTracks)")
        }
        var tracks: [TextTrack] = []
        for (index, spec) in specs.enumerated() {
            let track = try validated(spec, label: "\(field)[\(index)]")
            if existing.contains(where: { $0.isSame(as: track) }) || tracks.contains(where: { $0.isSame(as: track) }) { continue }
            tracks.append(track)
        }
        if tracks.isEmpty { return [] }
        // Both counts are at most what a request or row can hold: the sum cannot overflow.
        let total = existing.count + tracks.count
        guard total <= maxTracks else {
            throw StashError.invalidArgument("\(field): the download would have \(total) text tracks (\(existing.count) held and \(tracks.count) added); the limit is \(maxTracks)")
        }
        let paths = Set(files.map(\.path))
        guard !paths.contains(folder) else {
            throw StashError.invalidArgument("\(field): the download has a file named '\(folder)', the folder its text tracks go in")
        }
        let folders = BundleRules.folders(of: files)
        // Names compare without case, so the files stay apart on a file system that ignores it.
        var stems = Set(existing.map { $0.stem.lowercased() })
        for index in tracks.indices {
            let language = tracks[index].language
            let type = tracks[index].type
            // Each name tried is another one, and fewer than this many are taken.
            let tries = paths.count + stems.count + 1
            guard let number = (1...tries).first(where: { number in
                let stem = number == 1 ? language : "\(language)-\(number)"
                let path = "\(folder)/\(stem).\(type)"
                return !stems.contains(stem.lowercased()) && !paths.contains(path) && !folders.contains(path)
            }) else {
                throw StashError(.internal, "\(field)[\(index)]: no free file name for a text track of '\(language)' after \(tries) tries")
            }
            let stem = number == 1 ? language : "\(language)-\(number)"
            tracks[index].path = "\(folder)/\(stem).\(type)"
            stems.insert(stem.lowercased())
        }
        return tracks
    }

    /// A request's track checked, its type filled in (from the URI's extension when empty);
    /// its path is the daemon's to give.
    static func validated(_ spec: TextTrack, label: String) throws -> TextTrack {
        do {
            try DownloadRequestRules.validateURI(spec.uri)
        } catch let error as StashError {
            throw StashError.invalidArgument("\(label): \(error.message)")
        }
        try validateLanguage(spec.language, field: "\(label).lang")
        guard spec.title.count <= maxTitleLength else {
            throw StashError.invalidArgument("\(label).title is \(spec.title.count) characters; the limit is \(maxTitleLength)")
        }
        // Shown in lists and tables, one line each.
        guard !spec.title.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            throw StashError.invalidArgument("\(label).title '\(String(spec.title.prefix(100)).replacingNUL())' contains control characters")
        }
        var track = spec
        track.type = spec.type.isEmpty ? defaultType(for: spec.uri) : spec.type.lowercased()
        guard TextTrack.types.contains(track.type) else {
            throw StashError.invalidArgument("\(label).type '\(spec.type.prefix(50))' is not one of \(TextTrack.types.joined(separator: ", "))")
        }
        track.path = ""
        return track
    }

    /// An RFC 5646 tag as far as a file name needs: subtags of 1 to 8 ASCII letters or digits
    /// joined by `-`, the first of letters, at most `maxLanguageBytes` bytes.
    package static func validateLanguage(_ language: String, field: String) throws {
        let rule = "subtags of 1 to 8 letters or digits joined by '-', the first of letters, at most \(maxLanguageBytes) bytes, e.g. es or pt-BR"
        guard !language.isEmpty else {
            throw StashError.invalidArgument("\(field) is empty; give a language tag (\(rule))")
        }
        guard language.utf8.count <= maxLanguageBytes else {
            throw StashError.invalidArgument("\(field) '\(String(language.prefix(60)).replacingNUL())' is \(language.utf8.count) bytes; the limit is \(maxLanguageBytes)")
        }
        let subtags = language.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        let isLetter = { (byte: UInt8) in (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let valid = subtags.enumerated().allSatisfy { index, subtag in
            (1...8).contains(subtag.count) && subtag.allSatisfy { isLetter($0) || (index > 0 && isDigit($0)) }
        }
        guard valid else {
            throw StashError.invalidArgument("\(field) '\(language.replacingNUL())' is not a language tag (\(rule))")
        }
    }

    /// `vtt` unless the URI's path ends in `.srt`.
    package static func defaultType(for uri: String) -> String {
        let path = (URLComponents(string: uri)?.path ?? "").lowercased()
        return path.hasSuffix(".srt") ? "srt" : "vtt"
    }

    /// A track read back from the registry, which is outside input too: the request's rules,
    /// a type given, and a path the daemon could have given it (`subtitles/<lang>[-N].<type>`).
    package static func validateStored(_ track: TextTrack) throws {
        _ = try validated(track, label: "text track")
        guard TextTrack.types.contains(track.type) else {
            throw StashError.invalidArgument("text track type '\(track.type.prefix(50))' is not one of \(TextTrack.types.joined(separator: ", "))")
        }
        let prefix = folder + "/"
        let stem = track.stem
        let number = stem.utf8.dropFirst(track.language.utf8.count + 1)
        let numbered = stem.lowercased() == track.language.lowercased()
            || (stem.lowercased().hasPrefix(track.language.lowercased() + "-")
                && !number.isEmpty && number.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        guard track.path == prefix + stem + "." + track.type, numbered, stem.utf8.count <= maxLanguageBytes + 12 else {
            throw StashError.invalidArgument("text track path '\(String(track.path.prefix(200)).replacingNUL())' is not \(prefix)<lang>[-N].<type> for lang '\(track.language)' and type '\(track.type)'")
        }
        try BundleRules.validatePath(track.path, label: "text track")
    }

    /// Whether `entry`, a language of a RemoveSubtitles, names `track`: its file name without
    /// the extension names that one track (`es-2`); a language names every track of it, a bare
    /// one every regional form too (`es` takes `es` and `es-MX`), as for HLS renditions.
    package static func names(_ entry: String, _ track: TextTrack) -> Bool {
        let asked = entry.lowercased()
        let tag = track.language.lowercased()
        if track.stem.lowercased() == asked || tag == asked { return true }
        return !asked.contains("-") && tag.hasPrefix(asked + "-")
    }
}
