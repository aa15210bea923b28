/// The checks on files appended to an existing bundle (AddDownload with `append`).
extension BundleRules {
    /// The files an append adds to a bundle that holds `existing`. Each entry is checked as a
    /// new bundle's are (`files(from:)`, so errors name the entry of the append), then against
    /// the bundle: an entry with the URL and path of a file the bundle holds is skipped, so
    /// appending the same list twice adds nothing (as dedupe does for a whole list); another
    /// URL at a path it holds is refused naming the path. The limits apply to the bundle as it
    /// will be: its file count, its declared sizes together, and no path that is also another
    /// file's folder. `others` are files of the asset that are not the bundle's own (its text
    /// tracks'): their paths are taken, but they are not counted. Returns only the new files,
    /// in the order given.
    package static func appended(
        _ specs: [BundleFileSpec], to existing: [DownloadFile], alongside others: [DownloadFile] = [], fileName: (String) -> String
    ) throws -> [DownloadFile] {
        let candidates = try files(from: specs, fileName: fileName)
        var held: [String: DownloadFile] = [:]
        held.reserveCapacity(existing.count)
        for file in existing { held[file.path] = file }
        let taken = Set(others.map(\.path))
        var added: [DownloadFile] = []
        for (index, file) in candidates.enumerated() {
            guard !taken.contains(file.path) else {
                throw StashError.invalidArgument("files[\(index)]: path '\(file.path.prefix(200))' is the file of a text track of the bundle; give this file another path")
            }
            guard let present = held[file.path] else {
                added.append(file)
                continue
            }
            guard present.url == file.url else {
                // An adopted file has no URL: say so rather than print an empty one.
                let source = present.url.isEmpty ? "a file adopted without a URL" : "'\(present.url.prefix(200))'"
                throw StashError.invalidArgument("files[\(index)]: path '\(file.path.prefix(200))' is already in the bundle, from \(source), not '\(file.url.prefix(200))'; give this file another path")
            }
        }
        if added.isEmpty { return [] }
        // Counts from the registry are already bounded; the sum of two bounded counts cannot overflow Int.
        let total = existing.count + added.count
        guard total <= maxFiles else {
            throw StashError.invalidArgument("files: the bundle would have \(total) files (\(existing.count) held and \(added.count) appended); the limit is \(maxFiles)")
        }
        // Sizes learned from servers are outside input too: summed saturating.
        let declared = (existing + added).saturatingSum { $0.size ?? 0 }
        guard declared <= maxTotalSize else {
            throw StashError.invalidArgument("files: the sizes of the bundle's files would add up to \(declared) bytes, beyond the limit of \(maxTotalSize) for a bundle")
        }
        // A path cannot be both a file and the folder of another file, old or new.
        let oldFolders = folders(of: existing + others)
        if let clash = added.first(where: { oldFolders.contains($0.path) }) {
            throw StashError.invalidArgument("files: '\(clash.path.prefix(200))' would be a file and also the folder of a file the bundle holds")
        }
        let newFolders = folders(of: added)
        if let clash = (existing + others).first(where: { newFolders.contains($0.path) }) {
            throw StashError.invalidArgument("files: '\(clash.path.prefix(200))' is a file of the bundle and would also be the folder of an appended file")
        }
        return added
    }

    /// Every folder above the files' paths (`a` and `a/b` for `a/b/c`).
    static func folders(of files: [DownloadFile]) -> Set<String> {
        var folders: Set<String> = []
        for file in files {
            let components = file.path.split(separator: "/")
            for depth in 1..<max(1, components.count) {
                folders.insert(components[0..<depth].joined(separator: "/"))
            }
        }
        return folders
    }
}
