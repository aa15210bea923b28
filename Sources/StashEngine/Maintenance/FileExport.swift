import Foundation
import StashCore
import StashKeys
import StashRemux

/// An export to one file as it runs on the file pool: the target checked under the rule for
/// client paths (`DataDirGuard`: nothing is written into the data dir), then an HLS or DASH
/// package remuxed into it, or a single file copied or hard-linked there. What it writes is an
/// `ExportFile`: whole at the target, or nothing anywhere.
struct FileExport: Sendable {
    enum Kind: Sendable {
        case remux(format: ExportFormat, keyIDs: [String: String], textTracks: [TextTrack])
        /// A DASH package's folders, each one track (`DASHRemux`), decrypted with the keys of
        /// `keyIDs` when it is encrypted (CENC).
        case remuxDASH(format: ExportFormat, tracks: [DASHRemux.Track], keyIDs: [String: String], textTracks: [TextTrack])
        /// The download's file, relative to its asset folder.
        case copy(file: String)
        case link(file: String)
    }

    let id: String
    let kind: Kind
    /// As the request named it.
    let target: String
    let force: Bool
    let dataDir: String
    /// The download's asset folder.
    let folder: String
    let keys: KeyStore

    /// Bytes read and written at a time by a copy.
    static let copyChunk = 1 << 20

    func run(announce: @escaping (ExportProgress) -> Void) throws -> ExportResult {
        let paths = DataDirGuard(dataDir: dataDir)
        let resolved = try paths.resolve(target, field: "file", followingLast: false)
        try paths.refuse(resolved, field: "file")
        guard resolved.tail.count == 1, let name = resolved.tail.last else {
            throw StashError.invalidArgument("file \(resolved.shown): the folder \(resolved.base)/\(resolved.tail[0]) does not exist")
        }
        let destination: FolderHandle
        do {
            destination = try resolved.openBase()
        } catch {
            throw StashError.invalidArgument("file \(resolved.shown): its folder cannot be opened (\(error))")
        }
        defer { destination.release() }
        if let info = try? destination.status(name) {
            guard info.st_mode & S_IFMT != S_IFDIR else { throw StashError.invalidArgument("file \(resolved.shown) is a folder") }
            guard force else {
                throw StashError(.alreadyExists, "file \(resolved.shown) exists; force (`stash export --force`) replaces it")
            }
        }
        let meter = ExportMeter(id: id, file: target, announce: announce)
        do {
            switch kind {
            case .remux(let format, let keyIDs, let textTracks):
                return try remux(format: format, keyIDs: keyIDs, textTracks: textTracks, into: destination, name: name, resolved: resolved, meter: meter)
            case .remuxDASH(let format, let tracks, let keyIDs, let textTracks):
                let reader = try PackageReader(keys: keys, asset: id, folder: folder, keyIDs: keyIDs)
                defer { reader.release() }
                let job = try DASHRemux(reader: reader, tracks: tracks, textTracks: textTracks, format: format, encrypted: !keyIDs.isEmpty).job(meter: meter)
                return try write(job, format: format, into: destination, name: name, resolved: resolved, meter: meter)
            case .copy(let file):
                return try copy(file, into: destination, name: name, resolved: resolved, meter: meter)
            case .link(let file):
                return try link(file, into: destination, name: name, resolved: resolved, meter: meter)
            }
        } catch let error as StashError {
            throw error
        } catch let error as RemuxError {
            let format =
                switch kind {
                case .remux(let format, _, _), .remuxDASH(let format, _, _, _): format.rawValue
                default: ""
                }
            throw StashError(.failedPrecondition, "cannot write '\(id)' as one \(format) file: \(error); nothing was written at \(resolved.canonical)")
        } catch let error as SystemCallError where error.errnoCode == ENOSPC || error.errnoCode == EDQUOT {
            throw StashError(.resourceExhausted, "the disk holding \(resolved.base) is full (\(error)); nothing was written at \(resolved.canonical)")
        } catch let error as SystemCallError where error.errnoCode == EEXIST {
            throw StashError(.alreadyExists, "file \(resolved.shown) appeared while it was written; nothing was replaced")
        } catch {
            throw StashError(.internal, "cannot write \(resolved.canonical): \(error); nothing was written there")
        }
    }

    private func remux(
        format: ExportFormat, keyIDs: [String: String], textTracks: [TextTrack], into destination: FolderHandle, name: String,
        resolved: ClientPath, meter: ExportMeter
    ) throws -> ExportResult {
        let reader = try PackageReader(keys: keys, asset: id, folder: folder, keyIDs: keyIDs)
        defer { reader.release() }
        let job = try PackageRemux(reader: reader, textTracks: textTracks, format: format).job(meter: meter)
        return try write(job, format: format, into: destination, name: name, resolved: resolved, meter: meter)
    }

    /// Runs `job` into a new file at the target, committed only once it is whole.
    private func write(_ job: RemuxJob, format: ExportFormat, into destination: FolderHandle, name: String, resolved: ClientPath,
                       meter: ExportMeter) throws -> ExportResult {
        let output = try create(in: destination, name: name, resolved: resolved)
        defer { output.discard() }
        let tracks = try Remuxer.run(job, to: output.descriptor, path: resolved.canonical)
        let bytes = try size(of: output.descriptor, path: resolved.canonical)
        try output.commit(replacing: force)
        meter.finish()
        return ExportResult(files: 1, bytes: bytes, decrypted: true, file: resolved.canonical, format: format, tracks: tracks)
    }

    private func copy(_ file: String, into destination: FolderHandle, name: String, resolved: ClientPath, meter: ExportMeter) throws -> ExportResult {
        let (parent, fileName) = try openSource(file)
        defer { parent.release() }
        let source: Int32
        let total: Int64
        do {
            source = try parent.openEntry(fileName, O_RDONLY)
            total = try size(of: source, path: parent.path + "/" + fileName)
        } catch {
            throw missing(file, error)
        }
        defer { SystemCallError.close(source) }
        meter.start(total: total)
        let output = try create(in: destination, name: name, resolved: resolved)
        defer { output.discard() }
        var buffer = [UInt8](repeating: 0, count: Self.copyChunk)
        var copied: Int64 = 0
        while true {
            let count = try buffer.withUnsafeMutableBytes { bytes in
                try SystemCallError.check("read", parent.path + "/" + fileName) { read(source, bytes.baseAddress, bytes.count) }
            }
            if count == 0 { break }
            try DurableFile.writeAll(Array(buffer[0..<count]), to: output.descriptor, path: resolved.canonical)
            copied += Int64(count)
            meter.add(count)
        }
        try output.commit(replacing: force)
        meter.finish()
        return ExportResult(files: 1, bytes: copied, decrypted: false, file: resolved.canonical)
    }

    /// A second name for the download's file: no byte is copied, and both names are the same
    /// file (a change through one is a change of the download, which the disk watch sees).
    private func link(_ file: String, into destination: FolderHandle, name: String, resolved: ClientPath, meter: ExportMeter) throws -> ExportResult {
        let (parent, fileName) = try openSource(file)
        defer { parent.release() }
        let info: stat
        do {
            info = try parent.status(fileName)
            guard info.st_mode & S_IFMT == S_IFREG else { throw SystemCallError(call: "link", path: parent.path + "/" + fileName, errnoCode: EINVAL) }
        } catch {
            throw missing(file, error)
        }
        meter.start(total: Int64(info.st_size))
        let from = parent.descriptor
        let to = destination.descriptor
        // Without force, linkat at the name itself never replaces; with it, a link under a
        // temporary name is renamed over what is there.
        let linkName = force ? ExportFile.temporaryName(for: name) : name
        do {
            try SystemCallError.check("link", resolved.canonical) { linkat(from, fileName, to, linkName, 0) }
        } catch let error as SystemCallError where error.errnoCode == EXDEV {
            throw StashError.invalidArgument(
                "file \(resolved.shown) is on another file system than stash's data dir, and a hard link cannot cross file systems; export without link to copy it")
        }
        if force {
            do {
                try SystemCallError.check("rename", resolved.canonical) { renameat(to, linkName, to, name) }
            } catch {
                _ = unlinkat(to, linkName, 0)
                throw error
            }
        }
        try destination.sync()
        meter.finish()
        return ExportResult(files: 1, bytes: Int64(info.st_size), decrypted: false, file: resolved.canonical, linked: true)
    }

    /// The folder holding the download's `file` (relative to its asset folder) and the file's
    /// name, reached without following a symlink.
    private func openSource(_ file: String) throws -> (FolderHandle, String) {
        var components = file.split(separator: "/").map(String.init)
        do {
            guard let name = components.popLast() else { throw SystemCallError(call: "open", path: folder, errnoCode: EISDIR) }
            let asset = try FolderHandle.open(folder, followingSymlink: false)
            defer { asset.release() }
            return (try asset.descend(components), name)
        } catch {
            throw missing(file, error)
        }
    }

    private func missing(_ file: String, _ error: Error) -> StashError {
        StashError(.failedPrecondition, "\(folder)/\(file) is missing or unreadable (\(error)); `stash verify --repair` fetches it again")
    }

    /// The file in the target's folder; a folder stash may not write in is the caller's path
    /// to fix.
    private func create(in destination: FolderHandle, name: String, resolved: ClientPath) throws -> ExportFile {
        do {
            return try ExportFile(in: destination, name: name)
        } catch let error as SystemCallError where [EACCES, EPERM, EROFS].contains(error.errnoCode) {
            throw StashError.invalidArgument("file \(resolved.shown) cannot be created in its folder: \(error)")
        }
    }

    private func size(of descriptor: Int32, path: String) throws -> Int64 {
        var info = stat()
        try SystemCallError.check("fstat", path) { fstat(descriptor, &info) }
        return Int64(info.st_size)
    }
}
