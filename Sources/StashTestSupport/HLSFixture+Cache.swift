import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension HLSFixture {
    /// The fixture `make` builds, made once per build of the tests and shared by every test
    /// process: `swift test --parallel` runs each test in a process of its own, so a cache in
    /// memory made the streams again (ffmpeg, seconds of CPU) for every HLS test. Kept under
    /// the test binary's folder, keyed by the binary's size and time, so a rebuild (which may
    /// have changed how fixtures are made) starts afresh. Tests only read a shared fixture.
    ///
    /// - Parameter name: says which fixture and with what arguments, e.g. "ts-12s".
    package static func shared(_ name: String, make: (_ directory: String) throws -> HLSFixture) throws -> HLSFixture {
        let root = try cacheRoot()
        let folder = root + "/" + name
        let record = folder + "/fixture.json"
        if let cached = try? load(record, directory: folder) { return cached }
        // One maker at a time; the others wait here and then read what it made.
        let lockPath = root + "/" + name + ".lock"
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw HLSFixtureError("cannot open \(lockPath): errno \(errno)") }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else { throw HLSFixtureError("cannot lock \(lockPath): errno \(errno)") }
        }
        defer { flock(lock, LOCK_UN) }
        if let cached = try? load(record, directory: folder) { return cached }
        let scratch = folder + ".making"
        try? FileManager.default.removeItem(atPath: scratch)
        try? FileManager.default.removeItem(atPath: folder)
        let made = try make(scratch)
        try JSONEncoder().encode(made).write(to: URL(fileURLWithPath: scratch + "/fixture.json"))
        try FileManager.default.moveItem(atPath: scratch, toPath: folder)
        return try load(record, directory: folder)
    }

    private static func load(_ record: String, directory: String) throws -> HLSFixture {
        let stored = try JSONDecoder().decode(HLSFixture.self, from: Data(contentsOf: URL(fileURLWithPath: record)))
        // Made under another name (the scratch folder), read where it is now.
        return HLSFixture(
            directory: directory, masterPath: stored.masterPath, variants: stored.variants, subtitles: stored.subtitles, audio: stored.audio,
            keyHex: stored.keyHex, keyPath: stored.keyPath, seconds: stored.seconds)
    }

    /// `<test binary's folder>/hls-fixtures/<size>-<mtime>`, created if missing; the caches of
    /// earlier builds are deleted when a new one is made.
    private static func cacheRoot() throws -> String {
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let attributes = try FileManager.default.attributesOfItem(atPath: binary)
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        let time = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let base = (binary as NSString).deletingLastPathComponent + "/hls-fixtures"
        let key = "\(size)-\(Int64(time * 1000))"
        let root = base + "/" + key
        if !FileManager.default.fileExists(atPath: root) {
            for old in (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [] where old != key {
                try? FileManager.default.removeItem(atPath: base + "/" + old)
            }
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        }
        return root
    }
}
