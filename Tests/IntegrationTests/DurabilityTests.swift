import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// A completion makes stash's own files durable and nothing else. stashd, traced with strace
/// while a single file and a bundle complete, syncs each file's data (`fdatasync`), gives it
/// its name only then (a part file renamed, or an unnamed file linked where its folder is
/// new), and syncs its folders after that; it never calls `syncfs` or `sync`, which
/// write back every other program's unwritten data on the disk too and make each completion
/// wait for it.
final class DurabilityTests: DaemonTestCase {
    /// The system calls strace watches, with the path of each descriptor (`-y`).
    private static let traced = "trace=syncfs,sync,fdatasync,fsync,rename,renameat,renameat2,linkat"

    func testCompletionSyncsItsOwnFilesAndFoldersAndNeverTheWholeFileSystem() async throws {
        let strace = try XCTUnwrap(
            ["/usr/bin/strace", "/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "strace is needed (make deps installs it)")
        http.serve(path: "/single.bin", size: 64 * 1024)
        http.serve(path: "/a.bin", size: 30_000, seed: 1)
        http.serve(path: "/b.bin", size: 40_000, seed: 2)
        let trace = try Trace(strace: strace, pid: daemon.pid, calls: Self.traced)

        _ = try await client.addDownload(AddDownloadRequest(id: "single", uri: http.url("/single.bin")))
        _ = try await client.addDownload(AddDownloadRequest(id: "bundle", uri: "", files: [
            BundleFileSpec(url: http.url("/a.bin"), path: "pages/a.bin"), BundleFileSpec(url: http.url("/b.bin"), path: "pages/b.bin"),
        ]))
        _ = try await waitFor("single", .completed)
        _ = try await waitFor("bundle", .completed)
        let lines = try trace.stop()

        let whole = lines.filter { $0.range(of: #"^\d+\s+(syncfs|sync)\("#, options: .regularExpression) != nil }
        XCTAssertEqual(whole, [], "no sync of the whole file system")

        let assets = daemon.dataDir + "/assets"
        // The single file, in a folder its commit made: its data, unnamed, then the link that
        // names it, then its folder and the one holding it.
        let data = try XCTUnwrap(lines.firstIndex { $0.contains("fdatasync(") && $0.contains("<\(assets)/single/#") },
                                 "the single file's data is synced:\n\(lines.joined(separator: "\n"))")
        let rename = try XCTUnwrap(lines.firstIndex { $0.contains("linkat(") && $0.contains("\"single.bin\"") },
                                   "the single file is linked:\n\(lines.joined(separator: "\n"))")
        let folder = try XCTUnwrap(lines.lastIndex { $0.contains("fsync(") && $0.contains("<\(assets)/single>") },
                                   "the single file's folder is synced:\n\(lines.joined(separator: "\n"))")
        XCTAssertLessThan(data, rename, "the data is durable before the file gets its name")
        XCTAssertLessThan(rename, folder, "the folder is synced after the rename")
        XCTAssertTrue(lines.contains { $0.contains("fsync(") && $0.contains("<\(assets)>") }, "the folder holding the download's folder is synced")

        // The bundle: each file's data (unnamed where its commit made the folder, else a part
        // file), each named once, and once at the end each folder up to assets/.
        XCTAssertEqual(lines.filter { $0.contains("fdatasync(") && $0.contains("<\(assets)/bundle/pages/") }.count, 2)
        let named = lines.filter {
            ($0.contains("rename") && $0.contains(".bin.part\"")) || ($0.contains("linkat(") && $0.contains("<\(assets)/bundle/pages>"))
        }
        XCTAssertEqual(named.count, 2, "each file named once:\n\(lines.joined(separator: "\n"))")
        for path in ["\(assets)/bundle/pages", "\(assets)/bundle"] {
            XCTAssertTrue(lines.contains { $0.contains("fsync(") && $0.contains("<\(path)>") }, "\(path) is synced")
        }
    }
}

/// strace attached to a running process, writing the calls it traces to a file. Spawned
/// with no signal blocked: a test runs on a thread that blocks SIGINT, a child inherits that
/// mask, and strace does not unblock it, so it would never stop.
private final class Trace {
    private var pid: pid_t = 0
    private let output: String
    private let errors: String

    init(strace: String, pid tracee: Int32, calls: String) throws {
        let folder = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-strace")
        output = folder + "/trace"
        errors = folder + "/stderr"
        let arguments = [strace, "-f", "-y", "-e", calls, "-o", output, "-p", "\(tracee)"]
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        let status = posix_spawn(&pid, strace, &actions, &attributes, argv, environ)
        guard status == 0 else { throw DaemonProcessError("cannot start \(strace): errno \(status)") }
        // strace says "attached with N threads" once it holds every thread of the process.
        let deadline = Date().addingTimeInterval(10)
        while !((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "").contains("attached") {
            guard Date() < deadline else {
                throw DaemonProcessError("strace did not attach to \(tracee): \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
            }
            usleep(10_000)
        }
    }

    /// Detaches (SIGINT) and returns the calls traced, one a line.
    func stop() throws -> [String] {
        end()
        return try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// SIGINT, then SIGKILL if strace has not exited within 10 s, so a test cannot hang here.
    private func end() {
        guard pid > 0 else { return }
        kill(pid, SIGINT)
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(10)
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                break
            }
            usleep(10_000)
        }
        pid = 0
    }

    deinit {
        end()
        try? FileManager.default.removeItem(atPath: (output as NSString).deletingLastPathComponent)
    }
}
