import CStashProto
import StashCore

extension DownloadFile {
    /// A file of a bundle's record; the resume validators stay in the daemon.
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__BundleFile> {
        var message = Stash__V1__BundleFile()
        stash__v1__bundle_file__init(&message)
        message.url = arena.cString(url)
        message.path = arena.cString(path)
        message.size = UInt64(clamping: size ?? 0)
        message.sha256 = arena.cString(sha256)
        message.downloaded_bytes = UInt64(clamping: downloadedBytes)
        message.done = WireValue.bool(done)
        message.expect = arena.cString(expect)
        message.min_size = UInt64(clamping: minSize)
        return arena.store(message)
    }

    init(wire message: UnsafeMutablePointer<Stash__V1__BundleFile>?) throws {
        let m = try WireValue.message(message, field: "Download.files").pointee
        let size = try WireValue.int64(m.size, field: "BundleFile.size")
        self.init(
            url: try WireValue.string(m.url, field: "BundleFile.url"),
            path: try WireValue.string(m.path, field: "BundleFile.path"),
            size: size > 0 ? size : nil,
            sha256: try WireValue.string(m.sha256, field: "BundleFile.sha256"),
            downloadedBytes: try WireValue.int64(m.downloaded_bytes, field: "BundleFile.downloaded_bytes"),
            done: WireValue.bool(m.done),
            expect: try WireValue.string(m.expect, field: "BundleFile.expect"),
            minSize: try WireValue.int64(m.min_size, field: "BundleFile.min_size"))
    }
}

extension BundleFileSpec {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__BundleFile> {
        var message = Stash__V1__BundleFile()
        stash__v1__bundle_file__init(&message)
        message.url = arena.cString(url)
        message.path = arena.cString(path)
        message.size = UInt64(clamping: size)
        message.sha256 = arena.cString(sha256)
        message.expect = arena.cString(expect)
        message.min_size = UInt64(bitPattern: minSize)
        return arena.store(message)
    }

    init(wire message: UnsafeMutablePointer<Stash__V1__BundleFile>?) throws {
        let m = try WireValue.message(message, field: "AddDownloadRequest.files").pointee
        self.init(
            url: try WireValue.string(m.url, field: "BundleFile.url"),
            path: try WireValue.string(m.path, field: "BundleFile.path"),
            size: try WireValue.int64(m.size, field: "BundleFile.size"),
            sha256: try WireValue.string(m.sha256, field: "BundleFile.sha256"),
            expect: try WireValue.string(m.expect, field: "BundleFile.expect"),
            minSize: try WireValue.int64(m.min_size, field: "BundleFile.min_size"))
    }
}
