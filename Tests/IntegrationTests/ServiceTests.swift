import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// stashd as systemd runs it: started by `systemd-socket-activate` on a socket it is passed,
/// exiting when idle and started again by the next connection, and telling a notify socket
/// READY=1, STATUS=, WATCHDOG=1 and STOPPING=1; its log in the journal's format.
final class ServiceTests: XCTestCase {
    private var http: TestHTTPServer!
    private var directory = ""

    override func setUp() async throws {
        http = try TestHTTPServer.start()
        directory = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-service")
    }

    override func tearDown() async throws {
        http?.stop()
        if testRun?.hasSucceeded ?? false { try? FileManager.default.removeItem(atPath: directory) }
    }

    func testSocketActivatedStashdAnswersOnThePassedSocketThenExitsWhenIdleAndStartsAgainWithItsDownloads() async throws {
        let socket = directory + "/run/stashd.sock"
        let data = directory + "/data"
        http.serve(path: "/done", size: 5000)
        http.serve(path: "/slow", size: 1_500_000)
        http.update(path: "/slow") { $0.bytesPerSecond = 1_000_000 }
        // Paused right after its add: at 100 bytes a second it cannot complete before that.
        http.serve(path: "/held", size: 5000)
        http.update(path: "/held") { $0.bytesPerSecond = 100 }

        let first = try ActivatedDaemon(socket: socket, dataDir: data, arguments: ["--exit-when-idle", "2"], log: directory + "/first.log")
        // Its connection is the one that starts stashd.
        let listed = try DaemonProcess.run(executable: DaemonProcess.executableURL(named: "stash"), arguments: ["ls", "--socket", socket])
        XCTAssertEqual(listed.status, 0, listed.stderr + first.log)
        XCTAssertTrue(listed.stdout.hasPrefix("ID"), listed.stdout)
        XCTAssertTrue(first.log.contains("passed_by_service_manager=true"), first.log)
        let client = try await StashClient.connect(socketPath: socket, clientName: name)
        _ = try await client.addDownload(AddDownloadRequest(id: "done", uri: http.url("/done")))
        _ = try await client.addDownload(AddDownloadRequest(id: "held", uri: http.url("/held")))
        _ = try await client.pause(id: "held")
        _ = try await client.addDownload(AddDownloadRequest(id: "slow", uri: http.url("/slow")))
        await client.close()
        // No client now, but a transfer of about 1.5 s: stashd stays until it is done and then
        // 2 s more, never while it runs.
        let closed = ContinuousClock.now
        XCTAssertEqual(first.waitForExit(timeout: 20), 0, first.log)
        let lifetime = ContinuousClock.now - closed
        XCTAssertGreaterThan(lifetime, .seconds(3.2), "exited \(lifetime) s after the last client left, with a transfer of 1.5 s to finish; log:\n\(first.log)")
        XCTAssertTrue(first.log.contains("exiting when idle"), first.log)
        XCTAssertTrue(FileManager.default.fileExists(atPath: socket), "the passed socket stays for the manager")

        // The next connection starts stashd again, as the socket unit would.
        let second = try ActivatedDaemon(socket: socket, dataDir: data, arguments: ["--exit-when-idle", "2"], log: directory + "/second.log")
        let again = try await StashClient.connect(socketPath: socket, clientName: name)
        let states = Dictionary(uniqueKeysWithValues: try await again.allDownloads().map { ($0.id, $0.state) })
        XCTAssertEqual(states, ["done": .completed, "held": .paused, "slow": .completed], second.log)
        await again.close()
        XCTAssertEqual(second.waitForExit(timeout: 20), 0, second.log)
    }

    /// The passed socket must keep other users out as the one stashd binds does: connect(2)
    /// needs write permission, so a socket its group or others may write to is refused.
    func testAPassedSocketOthersMayWriteToIsRefused() throws {
        for (mode, shown) in [(mode_t(0o666), "666"), (0o620, "620")] {
            let socket = directory + "/run\(shown)/stashd.sock"
            let daemon = try ActivatedDaemon(socket: socket, dataDir: directory + "/data", arguments: [], log: directory + "/\(shown).log", mode: mode)
            let listed = try DaemonProcess.run(executable: DaemonProcess.executableURL(named: "stash"), arguments: ["ls", "--socket", socket])
            XCTAssertEqual(listed.status, 3, listed.stderr)
            XCTAssertEqual(daemon.waitForExit(timeout: 20), 1, daemon.log)
            XCTAssertTrue(
                daemon.log.contains("is mode \(shown): its group or others may write to it, and so connect; stashd serves a socket only its owner may write to"),
                daemon.log)
        }
    }

    /// Mode 0644 (what systemd-socket-activate leaves under the usual umask) admits only the
    /// owner, since connect(2) needs write permission: served.
    func testAPassedSocketOnlyItsOwnerMayWriteToIsServed() throws {
        let socket = directory + "/run/stashd.sock"
        let daemon = try ActivatedDaemon(socket: socket, dataDir: directory + "/data", arguments: ["--exit-when-idle", "1"], log: directory + "/log", mode: 0o644)
        let listed = try DaemonProcess.run(executable: DaemonProcess.executableURL(named: "stash"), arguments: ["ls", "--socket", socket])
        XCTAssertEqual(listed.status, 0, listed.stderr + daemon.log)
        XCTAssertEqual(daemon.waitForExit(timeout: 20), 0, daemon.log)
        XCTAssertTrue(daemon.log.contains("passed_by_service_manager=true"), daemon.log)
    }

    /// Variables stashd cannot use are named with their values and the limit; stashd does
    /// not start on them, and ignores those meant for another process.
    func testBadActivationVariablesAreReportedNotTrapped() async throws {
        let stashd = try DaemonProcess.executableURL(named: "stashd")
        let arguments = ["--socket", directory + "/s.sock", "--data-dir", directory + "/data"]
        let badPID = try DaemonProcess.run(executable: stashd, arguments: arguments, environment: ["LISTEN_PID": "-7", "LISTEN_FDS": "1"])
        XCTAssertEqual(badPID.status, 1, badPID.stderr)
        XCTAssertTrue(badPID.stderr.contains("LISTEN_PID '-7' is not a process id (a decimal number from 1 to 2147483647"), badPID.stderr)

        let socket = directory + "/run/stashd.sock"
        let two = try ActivatedDaemon(socket: socket, dataDir: directory + "/data", arguments: [], log: directory + "/two.log",
                                      alsoListening: directory + "/run/other.sock")
        let listed = try DaemonProcess.run(executable: DaemonProcess.executableURL(named: "stash"), arguments: ["ls", "--socket", socket])
        XCTAssertEqual(listed.status, 3, listed.stderr)
        XCTAssertEqual(two.waitForExit(timeout: 20), 1, two.log)
        XCTAssertTrue(two.log.contains("LISTEN_FDS is 2: stashd serves exactly 1 socket; give its socket unit one ListenStream= (descriptors 3…4 passed)"), two.log)

        let other = try await DaemonProcess.start(
            dataDir: directory + "/data", socketPath: directory + "/run2/stashd.sock",
            environment: ["LISTEN_PID": "1", "LISTEN_FDS": "99999999999"])
        XCTAssertEqual(other.terminate(), 0, other.log())
        XCTAssertTrue(other.log().contains("LISTEN_PID names another process; binding --socket"), other.log())
    }

    /// LISTEN_FDS for this very process (LISTEN_PID set by the shell that execs stashd) that is
    /// not a canonical count is refused with its value, and a count whose descriptors would
    /// pass Int32.max names the real limit.
    func testListenFDSIsReadAsACanonicalDecimalAndItsRangeNamedRight() throws {
        let refusals = [
            "+1": "LISTEN_FDS '+1' is not a number of descriptors (a decimal number from 0 to 2147483644",
            "01": "LISTEN_FDS '01' is not a number of descriptors (a decimal number from 0 to 2147483644",
            "2147483647": "LISTEN_FDS '2147483647' is not a number of descriptors (a decimal number from 0 to 2147483644, digits only: descriptors 3…2147483646 at most)",
            "2147483644": "LISTEN_FDS is 2147483644: stashd serves exactly 1 socket; give its socket unit one ListenStream= (descriptors 3…2147483646 passed)",
        ]
        for (value, message) in refusals {
            let run = try runStashdAsItsOwnListenPID(listenFDS: value, arguments: [])
            XCTAssertEqual(run.status, 1, "LISTEN_FDS=\(value): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(message), "LISTEN_FDS=\(value): \(run.stderr)")
            XCTAssertFalse(run.stderr.contains("2147483649"), run.stderr)
        }
    }

    /// LISTEN_PID naming stashd without LISTEN_FDS is what sd_listen_fds reads as no socket
    /// passed: stashd binds --socket as if not activated, and says so.
    func testListenPIDWithoutListenFDSBindsTheSocketItself() throws {
        let run = try runStashdAsItsOwnListenPID(listenFDS: nil, arguments: ["--exit-when-idle", "1"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("LISTEN_PID names this process but LISTEN_FDS passes no socket; binding --socket"), run.stderr)
        XCTAssertTrue(run.stderr.contains("passed_by_service_manager=false"), run.stderr)
        XCTAssertTrue(run.stderr.contains("exiting when idle"), run.stderr)
    }

    /// stashd run by a shell that sets LISTEN_PID to its own pid and execs it, so the pid is
    /// stashd's, as a service manager sets it.
    private func runStashdAsItsOwnListenPID(listenFDS: String?, arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let stashd = try DaemonProcess.executableURL(named: "stashd").path
        let data = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-listen")
        let script = "LISTEN_PID=$$; export LISTEN_PID; exec \"$0\" \"$@\""
        return try DaemonProcess.run(
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", script, stashd, "--socket", data + "/run/stashd.sock", "--data-dir", data + "/data"] + arguments,
            environment: listenFDS.map { ["LISTEN_FDS": $0] } ?? [:], timeout: 30)
    }

    func testNotifySocketGetsReadyAfterTheSocketAcceptsThenStatusWatchdogAndStopping() async throws {
        let notify = try NotifyListener(path: directory + "/notify")
        http.serve(path: "/slow", size: 3_000_000)
        http.update(path: "/slow") { $0.bytesPerSecond = 1_000_000 }
        let socket = directory + "/run/stashd.sock"
        notify.socketToProbe = socket
        let daemon = try await DaemonProcess.start(
            dataDir: directory + "/data", socketPath: socket,
            environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "400000"])
        XCTAssertTrue(notify.wait { $0.contains { $0.hasPrefix("READY=1") } }, "messages: \(notify.messages)")
        XCTAssertEqual(notify.readyWhileAccepting, true, "READY=1 came before the socket accepted")
        XCTAssertTrue(notify.messages.first { $0.hasPrefix("READY=1") }?.contains("STATUS=idle, 0 downloads kept") ?? false, "\(notify.messages)")

        let client = try await StashClient.connect(socketPath: socket, clientName: name)
        _ = try await client.addDownload(AddDownloadRequest(id: "slow", uri: http.url("/slow")))
        XCTAssertTrue(notify.wait { $0.contains { $0.hasPrefix("STATUS=1 downloading, ") && $0.hasSuffix("/s") } }, "\(notify.messages)")
        XCTAssertTrue(notify.wait { $0.filter { $0 == "WATCHDOG=1" }.count >= 2 }, "\(notify.messages)")
        await client.close()

        XCTAssertEqual(daemon.terminate(), 0, daemon.log())
        XCTAssertTrue(notify.wait { $0.contains { $0.hasPrefix("STOPPING=1") } }, "\(notify.messages)")
        let statuses = notify.messages.filter { $0.hasPrefix("STATUS=") }
        XCTAssertEqual(statuses, statuses.reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }, "STATUS= is sent only on a change")
    }

    /// A notify socket nobody reads holds 10 datagrams (net.unix.max_dgram_qlen): stashd then
    /// drops what does not fit, says so once, and serves and stops as it would without one
    /// (its sends used to wait for room, holding READY=1, the watchdog and the stop for ever).
    func testANotifySocketNobodyReadsHoldsUpNeitherTheDaemonNorItsStop() async throws {
        let notify = try StalledNotifySocket(path: directory + "/notify")
        // Full before stashd starts, so its first message already finds no room.
        XCTAssertGreaterThan(try notify.fill(), 0)
        let daemon = try await DaemonProcess.start(
            dataDir: directory + "/data", socketPath: directory + "/run/stashd.sock",
            environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "20000"])
        let client = try await StashClient.connect(socketPath: daemon.socketPath, clientName: name)
        for _ in 0..<5 { _ = try await client.stats() }
        await client.close()
        XCTAssertEqual(daemon.terminate(timeout: 10), 0, "SIGTERM with a full notify socket; log:\n\(daemon.log())")
        let warnings = daemon.log().components(separatedBy: "notify socket is full").count - 1
        XCTAssertEqual(warnings, 1, daemon.log())
    }

    /// With stderr the journal's stream (JOURNAL_STREAM names its device and inode), each
    /// line starts with its priority and has no timestamp; a download's add, start,
    /// completion and removal are a line each, with its id.
    func testJournalLinesCarryPrioritiesAndEachDownloadStep() async throws {
        let data = directory + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let logPath = data + "/stashd.log"
        XCTAssertTrue(FileManager.default.createFile(atPath: logPath, contents: nil))
        var info = stat()
        XCTAssertEqual(stat(logPath, &info), 0)
        http.serve(path: "/f", size: 1000)
        let daemon = try await DaemonProcess.start(dataDir: data, environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"])
        let client = try await StashClient.connect(socketPath: daemon.socketPath, clientName: name)
        let events = try await client.events(ids: ["f"])
        _ = try await client.addDownload(AddDownloadRequest(id: "f", uri: http.url("/f") + "?token=secret"))
        let final = try await Self.finalState(of: "f", in: events)
        XCTAssertEqual(final, .completed)
        try await client.cancel(id: "f")
        await client.close()
        XCTAssertEqual(daemon.terminate(), 0)
        let lines = daemon.log().split(separator: "\n").map(String.init)
        for (step, priority) in [("download added", 6), ("download started", 6), ("download completed", 6), ("download removed", 6)] {
            XCTAssertTrue(lines.contains { $0.hasPrefix("<\(priority)>info stashd:") && $0.contains("id=f") && $0.hasSuffix(step) }, "no '\(step)' line:\n\(lines.joined(separator: "\n"))")
        }
        XCTAssertTrue(lines.contains { $0.hasPrefix("<5>notice stashd:") && $0.hasSuffix("stashd ready") }, lines.joined(separator: "\n"))
        XCTAssertFalse(lines.contains { $0.contains("secret") }, "a URL's query is left out of the log")
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("<") }, "every line has a priority:\n\(lines.joined(separator: "\n"))")
    }

    /// The state `id` ends in (COMPLETED, FAILED, ...), as its events tell: no polling.
    private static func finalState(of id: String, in events: AsyncThrowingStream<DownloadEvent, Error>) async throws -> DownloadState? {
        for try await event in events {
            if case .stateChanged(let download, _) = event.kind, download.id == id, download.state.isTerminal { return download.state }
        }
        return nil
    }

    /// Elsewhere each line is swift-log's stream handler's: the local time to the second with
    /// its offset, the level, the label, the metadata by key, the module and the message.
    func testPlainLinesCarryTheLocalTimeAndEachDownloadStep() async throws {
        http.serve(path: "/f", size: 1000)
        // An empty JOURNAL_STREAM names no file: plain lines even under a journal.
        let daemon = try await DaemonProcess.start(dataDir: directory + "/data", environment: ["JOURNAL_STREAM": ""])
        let client = try await StashClient.connect(socketPath: daemon.socketPath, clientName: name)
        let events = try await client.events(ids: ["f"])
        _ = try await client.addDownload(AddDownloadRequest(id: "f", uri: http.url("/f")))
        let final = try await Self.finalState(of: "f", in: events)
        XCTAssertEqual(final, .completed)
        await client.close()
        XCTAssertEqual(daemon.terminate(), 0)
        let lines = daemon.log().split(separator: "\n").map(String.init)
        let line = try Regex(#"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{4} (info|notice|warning|error|critical|debug|trace) stashd:( \S+=.*)? \[\w+\] .+$"#)
        for text in lines {
            XCTAssertNotNil(text.wholeMatch(of: line), "not a plain log line: '\(text)'")
        }
        for step in ["download added", "download started", "download completed"] {
            XCTAssertTrue(lines.contains { $0.contains(" info stashd: ") && $0.contains("id=f") && $0.hasSuffix("[StashEngine] " + step) }, "no '\(step)' line:\n\(lines.joined(separator: "\n"))")
        }
    }
}

/// stashd behind `systemd-socket-activate -l SOCKET`, which binds the socket, waits for the
/// first connection and then runs stashd with it as descriptor 3 (LISTEN_FDS=1), as a socket
/// unit does. Spawned and reaped here rather than with Foundation's `Process`, which did not
/// see a `stash` run next to it exit until this one had exited too.
private final class ActivatedDaemon {
    private let pid: pid_t
    private var status: Int32?
    private let logPath: String

    /// Returns once the socket exists with `mode` (systemd-socket-activate has no SocketMode=).
    init(socket: String, dataDir: String, arguments: [String], log: String, mode: mode_t = 0o600, alsoListening: String? = nil) throws {
        logPath = log
        let folder = (socket as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let listen = ["-l", socket] + (alsoListening.map { ["-l", $0] } ?? [])
        let argv = ["/usr/bin/systemd-socket-activate"] + listen + [try DaemonProcess.executableURL(named: "stashd").path, "--data-dir", dataDir] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, argv[0], &actions, nil, &cArguments, environ)
        guard result == 0 else { throw DaemonProcessError("posix_spawn \(argv[0]): \(String(cString: strerror(result)))") }
        pid = child
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, !self.log.contains("Listening on") { usleep(10_000) }
        XCTAssertEqual(chmod(socket, mode), 0, "chmod \(socket): \(String(cString: strerror(errno)))")
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            waitpid(pid, &raw, 0)
        }
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The exit status (128 + the signal for one that killed it), or nil when it still runs
    /// after `timeout` (then it is killed).
    func waitForExit(timeout: TimeInterval) -> Int32? {
        if let status { return status }
        let deadline = ContinuousClock.now + .seconds(timeout)
        var raw: Int32 = 0
        while ContinuousClock.now < deadline {
            if waitpid(pid, &raw, WNOHANG) == pid {
                let signal = raw & 0x7f
                status = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
                return status
            }
            usleep(20_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &raw, 0)
        status = 128 + SIGKILL
        return nil
    }
}

/// A datagram socket in place of systemd's notify socket: collects what stashd sends, and
/// on READY=1 checks at once whether `socketToProbe` accepts a connection.
private final class NotifyListener: @unchecked Sendable {
    let path: String
    private let descriptor: Int32
    private let lock = NSLock()
    private var received: [String] = []
    private var ready: Bool?
    private var probe: String?
    private var thread: Thread?

    init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw DaemonProcessError("socket: \(String(cString: strerror(errno)))") }
        let address = try UnixSocketAddress(path: path, call: "bind")
        guard address.withSocketAddress({ bind(descriptor, $0, $1) }) == 0 else {
            throw DaemonProcessError("bind \(path): \(String(cString: strerror(errno)))")
        }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let thread = Thread { [weak self] in self?.receive() }
        self.thread = thread
        thread.start()
    }

    deinit { close(descriptor) }

    var socketToProbe: String? {
        get { lock.withLock { probe } }
        set { lock.withLock { probe = newValue } }
    }

    var messages: [String] { lock.withLock { received } }
    var readyWhileAccepting: Bool? { lock.withLock { ready } }

    /// Polls until `condition` holds for the messages so far (10 s at most).
    func wait(_ condition: ([String]) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if condition(messages) { return true }
            usleep(20_000)
        }
        return condition(messages)
    }

    private func receive() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { continue }
            let message = String(decoding: buffer[..<count], as: UTF8.self)
            let accepting = message.hasPrefix("READY=1") ? socketToProbe.map(Self.accepts) : nil
            lock.withLock {
                received.append(message)
                if let accepting { ready = accepting }
            }
            if message.hasPrefix("STOPPING=1") { return }
        }
    }

    private static func accepts(_ path: String) -> Bool {
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(probe) }
        guard let address = try? UnixSocketAddress(path: path, call: "connect") else { return false }
        return address.withSocketAddress { connect(probe, $0, $1) } == 0
    }
}

/// A datagram socket bound in place of systemd's notify socket that nobody reads.
private final class StalledNotifySocket {
    let path: String
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw DaemonProcessError("socket: \(String(cString: strerror(errno)))") }
        let address = try UnixSocketAddress(path: path, call: "bind")
        guard address.withSocketAddress({ bind(descriptor, $0, $1) }) == 0 else {
            throw DaemonProcessError("bind \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(descriptor) }

    /// Sends datagrams to it until it has no room for one more; returns how many it took.
    func fill() throws -> Int {
        let sender = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard sender >= 0 else { throw DaemonProcessError("socket: \(String(cString: strerror(errno)))") }
        defer { close(sender) }
        let address = try UnixSocketAddress(path: path, call: "sendto")
        let message = Array("STATUS=filler".utf8)
        for count in 0..<10_000 {
            let sent = address.withSocketAddress { target, length in
                sendto(sender, message, message.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL), target, length)
            }
            if sent < 0 {
                guard errno == EAGAIN || errno == EWOULDBLOCK else { throw DaemonProcessError("sendto \(path): \(String(cString: strerror(errno)))") }
                return count
            }
        }
        throw DaemonProcessError("\(path) took 10,000 datagrams without filling up")
    }
}
