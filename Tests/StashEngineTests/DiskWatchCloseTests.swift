import Foundation
import Logging
import StashTestSupport
import XCTest

@testable import StashEngine

/// A `watch` can come after `close` (the engine's late look at a download at a stop). Its
/// wake-up byte must go to the watch's own pipe, never to a file that took the number of a
/// descriptor the watch's thread closed as it ended.
final class DiskWatchCloseTests: XCTestCase {
    private static let threadName = "stash-diskwatch"

    /// The ids of this process's threads that carry the disk watch's name.
    private func watchThreads() -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return Set(tasks.filter { task in
            let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return name.trimmingCharacters(in: .whitespacesAndNewlines) == Self.threadName
        })
    }

    func testAWatchAfterCloseWritesToNoOtherFile() async throws {
        let before = watchThreads()
        let watch = try DiskWatch(logger: Logger(label: "test.disk-watch")) { _ in }
        var its = Set<String>()
        try await eventually("the thread starts") { its = self.watchThreads().subtracting(before); return !its.isEmpty }
        watch.close()
        try await eventually("the thread ends at close") { its.isDisjoint(with: self.watchThreads()) }

        // New files take the lowest free numbers: those the thread would have closed.
        let folder = NSTemporaryDirectory() + "disk-watch-close-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let files = (0..<3).map { folder + "/f\($0)" }
        let descriptors = files.map { open($0, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        defer { for descriptor in descriptors where descriptor >= 0 { Glibc.close(descriptor) } }
        XCTAssertFalse(descriptors.contains(-1))

        // A folder that is not there cannot be watched: the stat pass takes it, and the
        // thread is woken to start it.
        XCTAssertFalse(watch.watch(id: "late", folders: [folder + "/missing"]))
        watch.unwatch(id: "late")
        for file in files {
            XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber, 0, file)
        }
    }

    /// Its inotify descriptor and pipe close once the watch is closed and let go.
    func testItsDescriptorsCloseWhenTheWatchIsGone() async throws {
        let before = OpenDescriptors.now()
        var watch: DiskWatch? = try DiskWatch(logger: Logger(label: "test.disk-watch")) { _ in }
        let its = OpenDescriptors.now().subtracting(before).filter { $0.contains("inotify") || $0.contains("pipe:") }
        XCTAssertEqual(its.count, 3, "its inotify descriptor and both ends of its pipe: \(its)")
        watch?.close()
        watch = nil
        try await eventually("its descriptors closed: \(its.intersection(OpenDescriptors.now()))") { its.isDisjoint(with: OpenDescriptors.now()) }
    }
}
