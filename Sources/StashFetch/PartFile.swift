import CLinux
import Foundation
import StashCore
import StashCrypto

/// The open part file of one transfer, with the running SHA-256 of the bytes in it when a
/// digest is expected (hashing costs as much CPU as the rest of a fast transfer, so it is
/// done only when it is checked). Owned by one thread at a time: the disk queue while it opens
/// or commits the file, the fetch thread in between. The first `headCapacity` bytes of an
/// attempt are kept in memory and written in one pwrite(2); past them writes go straight to
/// the file.
///
/// Nothing is written outside the request's folder: the folders inside it are walked one at
/// a time with O_NOFOLLOW, and the file is opened, renamed and synced relative to the folder
/// it is in, so a symlink planted inside the folder fails the transfer instead of leading out.
// @unchecked Sendable: handed between the disk queue and the fetch thread (through the
// fetch inbox), never used by two at once, so its state needs no lock.
final class PartFile: TransferBody, @unchecked Sendable {
    /// Absolute path of the part file, for messages.
    let path: String
    private(set) var descriptor: Int32
    /// Bytes received: those in the file and those in `head`, all of them covered by
    /// `hasher` when there is one.
    private(set) var size: Int64
    /// Bytes not yet written (`headCount` of them), which belong at the file's end, at offset
    /// `size - headCount`.
    /// libcurl hands the body over in pieces of at most 16 KiB, often a few KiB on a
    /// loopback: a 64 KiB file took 11 pwrite calls, each an ext4 write of its own.
    private var head: UnsafeMutableRawBufferPointer?
    private var headCount = 0
    /// Until the first piece that does not fit in `head`: from then on every piece is
    /// written at once, so a large file costs one copy of its first bytes and no more.
    private var buffering = true
    static let headCapacity = 128 << 10
    /// What an O_DIRECT write needs aligned (its memory, its offset and its length): a page,
    /// a multiple of every disk's logical block.
    static let directAlignment = 4096
    /// The file was opened with O_DIRECT for the one write of a body held whole in `head`
    /// (`openDeferred(committing:)`), until that write is done.
    private var direct = false
    /// The file has no name yet (O_TMPFILE): it gets its final name at the commit, once its
    /// data is durable (`openDeferred(committing:)`).
    private var unnamed = false
    private var hasher: SHA256?
    private let writeBehind: WriteBehind
    /// The folder the file is in, opened by the walk; the file's names are relative to it.
    private var directory: Int32
    private let directoryPath: String
    /// The folders whose entries the file depends on, its own first (`FileSyncer`).
    let enclosingFolders: [String]
    /// The sync count (`FolderSync.now`) read once the folders were opened, made where
    /// missing: an `fsync` of a folder above the file numbered above it made their making
    /// durable. Nil: only one started after the file's commit does.
    var foldersCount: UInt64?
    private let partName: String
    private let finalName: String

    /// The folder given and the folders inside it up to the file's, until the file is opened.
    private var unopened: (folder: String, inside: ArraySlice<String>, likelyNew: Bool)?

    /// Opens (creating missing folders and the file) `<folder>/<relativePath>.part` without
    /// changing its content; with `deferred`, opens nothing yet. A deferred file is for a
    /// transfer that starts from byte 0 whatever the part file holds: it stays in memory
    /// until it outgrows `head` or is committed, and its first open empties the part file.
    /// A small file then touches the disk once, on the thread that syncs it, rather than
    /// costing a disk queue's thread a wake-up to open it first.
    ///
    /// `folderLikelyNew` says the folder is most likely missing (a single-file download's own
    /// folder at its first attempt): it is made before it is opened, not after an open fails.
    init(folder: String, relativePath: String, hashing: Bool, deferred: Bool = false, folderLikelyNew: Bool = false) throws {
        let components = relativePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // The caller checked the path already; checked again here because this is the code that
        // would write outside the folder if it were wrong.
        guard let name = components.last, !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            throw DownloadError(.validation, "'\(relativePath)' is not a path inside the folder '\(folder)'")
        }
        finalName = name
        partName = name + ".part"
        directoryPath = ([folder] + components.dropLast()).joined(separator: "/")
        enclosingFolders = FileSyncer.enclosingFolders(components.dropLast().joined(separator: "/"), in: folder)
        path = directoryPath + "/" + partName
        hasher = hashing ? SHA256() : nil
        writeBehind = WriteBehind(path: path)
        descriptor = -1
        size = 0
        if deferred {
            directory = -1
            unopened = (folder, components.dropLast(), folderLikelyNew)
            return
        }
        directory = try Self.openFolders(folder: folder, inside: components.dropLast(), makeFirst: folderLikelyNew).descriptor
        // Everything is initialised from here on, so deinit closes the folder if this throws.
        try openFile()
    }

    /// Whether the file waits for its first open (`init(deferred:)`).
    var isDeferred: Bool { unopened != nil }

    /// Whether `count` more bytes need the file open: they do not fit in `head`.
    func needsOpen(toAppend count: Int) -> Bool {
        unopened != nil && (!buffering || headCount + count > Self.headCapacity)
    }

    /// Opens a deferred file, emptying what an earlier run left in it (the bytes in memory are
    /// the transfer's from byte 0); nothing for a file already open. On an error the file
    /// stays deferred, so a later call tries again.
    ///
    /// `committing`: the file is opened to be committed, so the bytes in memory are all it
    /// will hold. Their aligned part is then written with O_DIRECT, straight from `head` to
    /// the disk: the page cache's copy, its pages and their writeback cost more than the
    /// direct write (the disk work alone for 2,000 files of 64 KiB, alternating rounds,
    /// bench/HISTORY.md: 141-156 against 178-185 µs a file), and the file is written once
    /// and read, if ever, later. And where this open made the file's folder, so that nothing
    /// can be beside it (no old part to empty, no file at its name), the file is made without
    /// a name (O_TMPFILE) and linked at its final name once durable: no part file made and
    /// renamed, and ext4 without a journal does not sync the folder with the file's data for a
    /// file that has no name yet (the same floor, written directly: 172 against 204 µs). A
    /// crash before the link leaves no name behind, only the inode for the file system to free
    /// (at mount with a journal, at the next fsck without), and the transfer starts again from
    /// byte 0 as a deferred one does anyway.
    func openDeferred(committing: Bool = false) throws {
        guard let (folder, inside, likelyNew) = unopened else { return }
        let (directory, made) = try Self.openFolders(folder: folder, inside: inside, makeFirst: likelyNew)
        self.directory = directory
        let direct = committing && buffering && Int64(headCount) == size && headCount >= Self.directAlignment
        do {
            let opened = committing && made && UnnamedFile.canLink ? try openUnnamed(direct: direct) : false
            if !opened { try openFile(truncating: true, direct: direct) }
        } catch {
            SystemCallError.close(directory)
            self.directory = -1
            throw error
        }
        unopened = nil
    }

    /// Opens an unnamed file in the folder, with O_DIRECT when `direct` and the file system
    /// takes it; false where the file system has no unnamed files, and the caller makes a part
    /// file instead.
    private func openUnnamed(direct: Bool) throws -> Bool {
        for flags in direct ? [stash_o_direct(), 0] : [0] {
            if let fd = try UnnamedFile.open(in: directory, path: directoryPath, flags: O_RDWR | flags) {
                (descriptor, unnamed, self.direct) = (fd, true, flags != 0)
                return true
            }
        }
        return false
    }

    deinit {
        closeFile()
        head?.deallocate()
    }

    /// Opens the part file with O_NOFOLLOW and makes sure it is a file of its own: a hard link
    /// would write into a file that also lives elsewhere.
    /// `direct`: with O_DIRECT, or without where the file system refuses it (EINVAL).
    private func openFile(truncating: Bool = false, direct: Bool = false) throws {
        let directory = self.directory
        let name = partName
        func open(_ flags: Int32) throws -> Int32 {
            try SystemCallError.check("open", path) { openat(directory, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | flags, 0o644) }
        }
        do {
            descriptor = try open(direct ? stash_o_direct() : 0)
            self.direct = direct
        } catch let error as SystemCallError where direct && error.errnoCode == EINVAL {
            descriptor = try open(0)
        }
        var info = stat()
        let fd = descriptor
        try SystemCallError.check("fstat", path) { fstat(fd, &info) }
        guard info.st_mode & S_IFMT == S_IFREG, info.st_nlink == 1 else {
            SystemCallError.close(fd)
            descriptor = -1
            throw DownloadError(.storage, "'\(path)' is not a regular file with a single link; nothing is written to it")
        }
        // Checked as a file of its own before it is emptied: O_TRUNC would empty a hard link's
        // other names too.
        if truncating, info.st_size > 0 {
            do {
                try SystemCallError.check("ftruncate", path) { ftruncate(fd, 0) }
            } catch {
                SystemCallError.close(fd)
                descriptor = -1
                throw error
            }
        }
        // A deferred file's size is what it holds in memory.
        if !truncating { size = Int64(info.st_size) }
    }

    /// Opens `folder`, creating it when missing, then each of `components` inside it,
    /// creating the missing ones; returns the last folder opened. Every open refuses a symlink.
    /// A folder is opened first and made only when missing: most files of a bundle go to
    /// folders that an earlier file made. With `makeFirst`, `folder` is made first (one failed
    /// open less where it is new; a failed mkdir where it is not).
    /// `made`: this call made the last folder opened (the file's), so nothing else is in it.
    private static func openFolders(
        folder: String, inside components: ArraySlice<String>, makeFirst: Bool
    ) throws -> (descriptor: Int32, made: Bool) {
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
        let madeFirst = makeFirst ? try makeFolders(folder) : false
        var (directory, made) = try openFolder(folder, open: { open(folder, flags) }, make: { try makeFolders(folder) })
        made = made || madeFirst
        var path = folder
        for name in components {
            path += "/" + name
            let parent = directory
            defer { SystemCallError.close(parent) }
            let here = path
            (directory, made) = try openFolder(here, open: { openat(parent, name, flags) }, make: {
                try makeFolder(here) { mkdirat(parent, name, 0o755) }
            })
        }
        return (directory, made)
    }

    /// Opens a folder, making it first only when the open finds it missing; `made`: this
    /// call made it.
    private static func openFolder(_ path: String, open: () -> Int32, make: () throws -> Bool) throws -> (Int32, made: Bool) {
        do {
            return (try SystemCallError.check("open folder", path, open), false)
        } catch let error as SystemCallError where error.errnoCode == ENOENT {
            let made = try make()
            return (try SystemCallError.check("open folder", path, open), made)
        }
    }

    /// mkdir -p for the request's folder itself: it is in the daemon's own data dir, whose
    /// folders above it are trusted (they may well be symlinks, to another disk say).
    /// True when it made `path` (not there before).
    @discardableResult
    private static func makeFolders(_ path: String) throws -> Bool {
        do {
            return try makeFolder(path) { mkdir(path, 0o755) }
        } catch let error as SystemCallError where error.errnoCode == ENOENT {
            let parent = (path as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != path else { throw error }
            try makeFolders(parent)
            return try makeFolder(path) { mkdir(path, 0o755) }
        }
    }

    /// Runs `call` (a mkdir of `path`), taking EEXIST as done; true when it made the folder.
    private static func makeFolder(_ path: String, _ call: () -> Int32) throws -> Bool {
        do {
            try SystemCallError.check("mkdir", path, call)
            return true
        } catch let error as SystemCallError where error.errnoCode == EEXIST {
            // There already (made meanwhile by another file's open, say); opening it as a
            // folder is what decides whether it is one.
            return false
        }
    }

    /// Hashes what is already in the file so a resumed transfer still reports the digest of
    /// the whole file without reading it again at the end.
    func hashExistingContent() throws {
        guard hasher != nil else { return }
        hasher = SHA256()
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        let fd = descriptor
        while offset < size {
            let want = Int(min(Int64(chunk), size - offset))
            let got = try SystemCallError.check("read", path) { pread(fd, buffer.baseAddress, want, off_t(offset)) }
            if got == 0 { break }
            hasher?.update(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            offset += Int64(got)
        }
        size = offset
    }

    func truncate() throws {
        let fd = descriptor
        if unopened == nil { try SystemCallError.check("ftruncate", path) { ftruncate(fd, 0) } }
        // Only once the file is empty: a failed truncate leaves the bytes and `size` as they were.
        headCount = 0
        size = 0
        buffering = true
        if hasher != nil { hasher = SHA256() }
    }

    /// Keeps `bytes` (in `head` while they fit, else written at once) or throws. On a short
    /// write followed by an error (a full disk) the bytes that did land stay in the file: they
    /// are the resource's, and a resume counts them from the file's size.
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        if buffering, headCount + bytes.count <= Self.headCapacity {
            let buffer = head ?? UnsafeMutableRawBufferPointer.allocate(byteCount: Self.headCapacity, alignment: Self.directAlignment)
            head = buffer
            UnsafeMutableRawBufferPointer(rebasing: buffer[headCount..<headCount + bytes.count]).copyMemory(from: bytes)
            headCount += bytes.count
        } else {
            try openDeferred()
            buffering = false
            try flushHead()
            try write(bytes, at: size)
        }
        hasher?.update(bytes)
        size += Int64(bytes.count)
    }

    /// Writes what `head` holds to the file and frees it. On an error `head` stays as it
    /// was, so `size` still tells where the next bytes go and a later flush writes it again.
    private func flushHead() throws {
        guard let buffer = head, headCount > 0 else { return }
        let count = headCount
        let (bytes, offset) = (UnsafeRawBufferPointer(rebasing: buffer[0..<count]), size - Int64(count))
        if direct { try writeDirect(bytes, at: offset) } else { try write(bytes, at: offset) }
        headCount = 0
        buffer.deallocate()
        head = nil
    }

    /// Writes all of `bytes` at `offset`, or throws; bytes that landed before an error stay.
    private func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        guard let base = bytes.baseAddress else { return }
        var written = 0
        let fd = descriptor
        while written < bytes.count {
            let start = written
            let count = try SystemCallError.check("write", path) {
                pwrite(fd, base + start, bytes.count - start, off_t(offset + Int64(start)))
            }
            written += count
        }
        writeBehind.wrote(bytes.count, descriptor: fd)
    }

    /// Writes `bytes` (aligned in memory and at an aligned `offset`) through the O_DIRECT
    /// descriptor: the aligned part directly, the rest (under a page) through the page cache
    /// once O_DIRECT is off. A file system that took O_DIRECT at open but refuses the write
    /// (EINVAL) gets all of it through the page cache.
    private func writeDirect(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        let aligned = bytes.count - bytes.count % Self.directAlignment
        do {
            try write(UnsafeRawBufferPointer(rebasing: bytes[0..<aligned]), at: offset)
        } catch let error as SystemCallError where error.errnoCode == EINVAL {
            try endDirect()
            return try write(bytes, at: offset)
        }
        guard aligned < bytes.count else { return }
        try endDirect()
        try write(UnsafeRawBufferPointer(rebasing: bytes[aligned...]), at: offset + Int64(aligned))
    }

    /// Turns O_DIRECT off: what is written from now on goes through the page cache.
    private func endDirect() throws {
        let fd = descriptor
        let flags = try SystemCallError.check("fcntl F_GETFL", path) { fcntl(fd, F_GETFL) }
        try SystemCallError.check("fcntl F_SETFL", path) { fcntl(fd, F_SETFL, flags & ~stash_o_direct()) }
        direct = false
    }

    /// Lowercase hex digest of the bytes written so far; empty when not hashing.
    var sha256Hex: String {
        guard let hasher else { return "" }
        return hasher.finalizeHex()
    }

    /// The folder the file is in, and the descriptor it was opened with (until `closeFile`).
    var folderPath: String { directoryPath }
    var folderDescriptor: Int32 { directory }

    /// Makes the file's data durable (`fdatasync`: its bytes and its size, not the other
    /// files of the disk), then renames it to its final name; the folder is not synced. A
    /// symlink at the final name is replaced, not followed (rename never follows its target).
    func syncDataAndRename() throws {
        try openDeferred()
        let fd = descriptor
        try flushHead()
        try writeBehind.check()
        try SystemCallError.check("fdatasync", path) { fdatasync(fd) }
        if unnamed { try link() } else { try rename() }
    }

    /// Gives the unnamed file its final name. linkat never replaces: a name that appeared
    /// meanwhile in the folder this file's open made is EEXIST, and the transfer fails.
    private func link() throws {
        try UnnamedFile.link(descriptor, in: directory, as: finalName, path: directoryPath + "/" + finalName)
        unnamed = false
    }

    private func rename() throws {
        let directory = self.directory
        let (partName, finalName) = (self.partName, self.finalName)
        try SystemCallError.check("rename to '\(directoryPath)/\(finalName)' from", path) {
            renameat(directory, partName, directory, finalName)
        }
    }

    /// Writes what is still in memory (best effort: a resume counts only what the file
    /// holds), then closes the file and the folder it was opened in.
    func closeFile() {
        if unopened != nil, headCount > 0 {
            // A stop or failure part-way: what arrived is kept for a resume, as an open file's
            // would be.
            try? openDeferred()
        }
        if descriptor >= 0 {
            try? flushHead()
            SystemCallError.close(descriptor)
            descriptor = -1
        }
        if directory >= 0 {
            SystemCallError.close(directory)
            directory = -1
        }
    }

    func remove() {
        headCount = 0
        // Never opened, or never named: nothing of this transfer is on the disk.
        guard unopened == nil, !unnamed else { return closeFile() }
        let directory = self.directory
        let name = partName
        // Best effort: the caller reports the failure that made the file worthless.
        _ = try? SystemCallError.check("unlink", path) { unlinkat(directory, name, 0) }
        closeFile()
    }
}
