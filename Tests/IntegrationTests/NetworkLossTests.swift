import StashCrypto
import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// The network goes away in the middle of a download and comes back: the download waits in
/// WAITING_FOR_NETWORK without using up its attempts, then finishes by itself.
///
/// It needs a network of its own to switch off: a network namespace holding both ends of a
/// veth pair, where stashd and a small HTTP server run. That takes root and iproute2; without them the
/// test is skipped with a message.
final class NetworkLossTests: XCTestCase {
    private var namespace = ""
    private var work = ""
    private var processes: [Process] = []

    override func setUp() async throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") else {
            throw XCTSkip("needs root and /usr/sbin/ip to make a network namespace")
        }
        namespace = "stash-nt-\(getpid())"
        work = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-netloss")
        guard (try? ip("netns", "add", namespace)) != nil else {
            throw XCTSkip("cannot create a network namespace here")
        }
        try ip("netns", "exec", namespace, "ip", "link", "set", "lo", "up")
        try ip("netns", "exec", namespace, "ip", "link", "add", "stash0", "type", "veth", "peer", "name", "stash1")
        try ip("netns", "exec", namespace, "ip", "addr", "add", "\(Self.address)/24", "dev", "stash0")
        try setInterface(up: true)
    }

    override func tearDown() async throws {
        for process in processes where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        if !namespace.isEmpty { _ = try? ip("netns", "del", namespace) }
        if !work.isEmpty { try? FileManager.default.removeItem(atPath: work) }
    }

    /// An address of the namespace's own interface: traffic to it never leaves the namespace.
    private static let address = "10.253.0.1"
    private static let port = 8631

    func testDownloadWaitsForTheNetworkAndResumesByItself() async throws {
        let body = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        XCTAssertTrue(FileManager.default.createFile(atPath: work + "/file.bin", contents: Data(body)))
        let digest = SHA256.hex(SHA256.hash(body))

        var server = try startServer(bytesPerSecond: 500_000)
        let (daemon, client) = try await startDaemon()
        defer { Task { await client.close() } }
        _ = try await client.setConfig([(key: "retry-base-delay-ms", value: "50"), (key: "low-speed-time", value: "2")])

        _ = try await client.addDownload(AddDownloadRequest(
            id: "offline", uri: "http://\(Self.address):\(Self.port)/file.bin", sha256: digest))
        _ = try await poll(client, "offline", "bytes to flow") { $0.state == .downloading && $0.downloadedBytes > 100_000 }

        // The network goes: the interface is down and the server with it.
        try setInterface(up: false)
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        let waiting = try await poll(client, "offline", "WAITING_FOR_NETWORK") { $0.state == .waitingForNetwork }
        XCTAssertTrue(waiting.stateReason.contains("network"), waiting.stateReason)
        // The daemon looks again a second later and finds the network still gone (that the
        // looks use no attempts is FetchControlTests'): the download waits on, without failing.
        try await eventually("stashd to look at the network again") { self.log.contains("network still down") }
        let still = try await client.getDownload(id: "offline")
        XCTAssertEqual(still.state, .waitingForNetwork, "it waits, without failing, while the network is away")

        // The network comes back: nobody asks, the download resumes and completes.
        try setInterface(up: true)
        server = try startServer(bytesPerSecond: nil)
        let done = try await poll(client, "offline", "COMPLETED", timeout: 30) { $0.state == .completed || $0.state == .failed }
        XCTAssertEqual(done.state, .completed, "\(String(describing: done.error))")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: done.assetPath))
        XCTAssertEqual(SHA256.hex(SHA256.hash(Array(bytes))), digest)

        kill(daemon.processIdentifier, SIGTERM)
        daemon.waitUntilExit()
        XCTAssertEqual(daemon.terminationStatus, 0)
    }

    func testHLSPlanningWaitsForTheNetworkAndCompletesWhenItIsBack() async throws {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        let stream = try HLSFixture.fmp4(in: work + "/hls", seconds: 4)
        try setInterface(up: false)
        let (daemon, client) = try await startDaemon()
        defer { Task { await client.close() } }
        _ = try await client.setConfig([(key: "retry-base-delay-ms", value: "50")])

        _ = try await client.addDownload(AddDownloadRequest(
            id: "stream", uri: "http://\(Self.address):\(Self.port)/\(stream.masterPath)", hls: HLSOptions()))
        let waiting = try await poll(client, "stream", "WAITING_FOR_NETWORK while reading the playlists") { $0.state == .waitingForNetwork }
        XCTAssertTrue(waiting.stateReason.contains("playlists"), waiting.stateReason)
        XCTAssertEqual(waiting.filesTotal, 0, "nothing planned yet")

        try setInterface(up: true)
        _ = try startDirectoryServer(stream.directory)
        let done = try await poll(client, "stream", "COMPLETED", timeout: 30) { $0.state == .completed || $0.state == .failed }
        XCTAssertEqual(done.state, .completed, "\(String(describing: done.error))")
        XCTAssertEqual(done.filesDone, done.filesTotal)
        XCTAssertGreaterThan(done.filesTotal, 0)

        kill(daemon.processIdentifier, SIGTERM)
        daemon.waitUntilExit()
        XCTAssertEqual(daemon.terminationStatus, 0)
    }

    // MARK: - Helpers

    @discardableResult
    private func ip(_ arguments: String...) throws -> String {
        let result = try DaemonProcess.run(executable: URL(fileURLWithPath: "/usr/sbin/ip"), arguments: arguments, timeout: 20)
        guard result.status == 0 else {
            throw DaemonProcessError("ip \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return result.stdout
    }

    /// Both ends together: an interface that is up gets an IPv6 link-local address, which
    /// counts as a network.
    private func setInterface(up: Bool) throws {
        for name in ["stash0", "stash1"] {
            try ip("netns", "exec", namespace, "ip", "link", "set", name, up ? "up" : "down")
        }
    }

    /// Starts a program inside the namespace; it is killed in tearDown if still running.
    private func inNamespace(_ executable: String, _ arguments: [String], log: String) throws -> Process {
        XCTAssertTrue(FileManager.default.createFile(atPath: log, contents: nil))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = ["netns", "exec", namespace, executable] + arguments
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = output
        process.standardError = output
        try process.run()
        processes.append(process)
        return process
    }

    /// A minimal HTTP server for the namespace (Python's, throttled when asked); it ignores
    /// Range, so a resumed download starts again from zero, which the daemon handles.
    private func startServer(bytesPerSecond: Int?) throws -> Process {
        let script = """
            import http.server, os, sys, time
            path, rate = sys.argv[1], int(sys.argv[2])
            class H(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    data = open(path, 'rb').read()
                    self.send_response(200)
                    self.send_header('Content-Length', str(len(data)))
                    self.end_headers()
                    step = max(1, rate // 20) if rate else len(data)
                    for i in range(0, len(data), step):
                        self.wfile.write(data[i:i + step])
                        if rate: time.sleep(0.05)
                def log_message(self, *a): pass
            http.server.ThreadingHTTPServer((sys.argv[3], int(sys.argv[4])), H).serve_forever()
            """
        let process = try inNamespace(
            "/usr/bin/env", ["python3", "-c", script, work + "/file.bin", String(bytesPerSecond ?? 0), Self.address, String(Self.port)],
            log: work + "/server-\(processes.count).log")
        return try waitUntilListening(process)
    }

    /// Python's static file server for `directory`, inside the namespace.
    private func startDirectoryServer(_ directory: String) throws -> Process {
        let process = try inNamespace(
            "/usr/bin/env", ["python3", "-m", "http.server", String(Self.port), "--bind", Self.address, "--directory", directory],
            log: work + "/server-\(processes.count).log")
        return try waitUntilListening(process)
    }

    private func waitUntilListening(_ process: Process) throws -> Process {
        // Ready when its port answers inside the namespace.
        for _ in 0..<100 {
            if (try? ip("netns", "exec", namespace, "python3", "-c",
                        "import socket; socket.create_connection(('\(Self.address)', \(Self.port)), 1).close()")) != nil {
                return process
            }
            usleep(100_000)
        }
        throw DaemonProcessError("the test HTTP server did not start in \(namespace)")
    }

    /// stashd inside the namespace, and a client connected to it.
    private func startDaemon() async throws -> (Process, StashClient) {
        let socket = work + "/run/stashd.sock"
        let daemon = try inNamespace(
            DaemonProcess.executableURL(named: "stashd").path,
            ["--socket", socket, "--data-dir", work + "/data", "--log-level", "debug"],
            log: work + "/stashd.log")
        return (daemon, try await connect(socket))
    }

    private func connect(_ socket: String) async throws -> StashClient {
        for _ in 0..<1_000 {
            if let client = try? await StashClient.connect(socketPath: socket) { return client }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        throw DaemonProcessError("stashd did not start; log:\n\((try? String(contentsOfFile: work + "/stashd.log", encoding: .utf8)) ?? "")")
    }

    /// What stashd has logged so far.
    private var log: String { (try? String(contentsOfFile: work + "/stashd.log", encoding: .utf8)) ?? "" }

    private func poll(
        _ client: StashClient, _ id: String, _ what: String, timeout: TimeInterval = 20, _ condition: (Download) -> Bool
    ) async throws -> Download {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var last: Download?
        while ContinuousClock.now < deadline {
            let download = try await client.getDownload(id: id)
            last = download
            if condition(download) { return download }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        XCTFail("waited \(timeout) s for \(what); last state \(last?.state.name ?? "?"), log:\n\(log.suffix(3000))")
        throw CancellationError()
    }
}
