import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real `stashd` child process for tests and demos: started on a private socket and data
/// dir, with its stderr in a log file, ready once the socket accepts connections.
package final class DaemonProcess: @unchecked Sendable {
    package let socketPath: String
    package let dataDir: String
    /// stashd's stdout and stderr, appended across restarts.
    package var logPath: String { dataDir + "/stashd.log" }
    package let extraArguments: [String]
    package let environment: [String: String]
    private var process: Process

    /// How long `start` waits for the socket to accept a connection.
    package static let startTimeout: TimeInterval = 20

    private init(socketPath: String, dataDir: String, extraArguments: [String], environment: [String: String], process: Process) {
        self.socketPath = socketPath
        self.dataDir = dataDir
        self.extraArguments = extraArguments
        self.environment = environment
        self.process = process
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// Starts stashd and waits until its socket accepts connections.
    ///
    /// - Parameters:
    ///   - dataDir: nil for a new temporary directory.
    ///   - socketPath: nil for `stashd.sock` in a directory stashd creates inside a new
    ///     temporary directory (short enough for the 108-byte socket path limit).
    ///   - extraArguments: appended to `--socket` and `--data-dir`.
    ///   - environment: added to this process's environment.
    /// - Throws: `DaemonProcessError` when the binary is missing, stashd exits during start
    ///   (the error holds its log) or the socket does not accept within `startTimeout`.
    package static func start(
        dataDir: String? = nil, socketPath: String? = nil, extraArguments: [String] = [], environment: [String: String] = [:]
    ) async throws -> DaemonProcess {
        let dataDir = try dataDir ?? makeTemporaryDirectory(prefix: "stashd-data")
        let socketPath = try socketPath ?? (makeTemporaryDirectory(prefix: "stashd-run") + "/sock/stashd.sock")
        let process = try launch(socketPath: socketPath, dataDir: dataDir, extraArguments: extraArguments, environment: environment)
        let daemon = DaemonProcess(
            socketPath: socketPath, dataDir: dataDir, extraArguments: extraArguments, environment: environment, process: process)
        try await daemon.waitUntilReady()
        return daemon
    }

    /// Stops stashd (SIGTERM) and starts it again on the same socket and data dir.
    package func restart() async throws {
        if process.isRunning { _ = terminate() }
        process = try Self.launch(socketPath: socketPath, dataDir: dataDir, extraArguments: extraArguments, environment: environment)
        try await waitUntilReady()
    }

    /// The child's pid.
    package var pid: Int32 { process.processIdentifier }

    package var isRunning: Bool { process.isRunning }

    /// Sends a signal (SIGKILL to simulate a crash, SIGSTOP to freeze it, ...).
    package func kill(signal: Int32) {
        Glibc.kill(process.processIdentifier, signal)
    }

    /// SIGTERM, then waits; returns the exit status. A daemon still running after `timeout`
    /// seconds is killed (SIGKILL), so a stop that hangs fails the test (status 9) instead of
    /// hanging it.
    @discardableResult
    package func terminate(timeout: TimeInterval = 30) -> Int32 {
        kill(signal: SIGTERM)
        let deadline = ContinuousClock.now + .seconds(timeout)
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning { kill(signal: SIGKILL) }
        return waitForExit()
    }

    /// Waits for stashd to exit; returns its exit status (or the signal number when it was
    /// killed by one).
    @discardableResult
    package func waitForExit() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Everything stashd has written so far.
    package func log() -> String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// The end of the log for a failure message, about `limit` characters. When stashd
    /// crashed, the report from its first line: the runtime's backtrace ends in a list of
    /// loaded images that would otherwise fill the message and hide why it crashed.
    package func logTail(_ limit: Int = 3000) -> String {
        let log = log()
        let marks = ["Fatal error", "Program crashed"].compactMap { log.range(of: $0)?.lowerBound }
        guard let crash = marks.min() else { return String(log.suffix(limit)) }
        let start = log[..<crash].lastIndex(of: "\n").map { log.index(after: $0) } ?? log.startIndex
        return String(log[start...].prefix(limit))
    }

    /// Runs the `stash` CLI against this daemon (`--socket` is appended to `args`).
    package func runCLI(_ args: [String], environment extra: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        try Self.run(executable: Self.executableURL(named: "stash"), arguments: args + ["--socket", socketPath], environment: extra)
    }

    /// Runs an executable to completion and returns its status and output. After `timeout`
    /// seconds it is killed (SIGKILL), so a test that expected an exit cannot hang.
    package static func run(
        executable: URL, arguments: [String], environment extra: [String: String] = [:], timeout: TimeInterval = 60
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let directory = try makeTemporaryDirectory(prefix: "stash-run")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outPath = directory + "/stdout"
        let errPath = directory + "/stderr"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { Glibc.kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        process.waitUntilExit()
        watchdog.cancel()
        try out.close()
        try err.close()
        let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return (process.terminationStatus, stdout, stderr)
    }

    /// Finds a product binary: in `$STASH_BIN_DIR` when set, else in the nearest directory
    /// above this test executable that has it (`swift test` runs from `.build/debug`, where
    /// the products are).
    package static func executableURL(named name: String) throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let binDir = environment["STASH_BIN_DIR"], !binDir.isEmpty {
            let path = binDir + "/" + name
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw DaemonProcessError("STASH_BIN_DIR is \(binDir) but \(path) is not an executable file")
            }
            return URL(fileURLWithPath: path)
        }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw DaemonProcessError("no '\(name)' binary in the directories above \(executable); build it (swift build) or set STASH_BIN_DIR")
    }

    /// Leaves `path`, made by `makeTemporaryDirectory`, in place when this process exits: the
    /// data dir of a failed test, for a look.
    package static func keepTemporaryDirectory(_ path: String) {
        TemporaryDirectories.keep(path)
    }

    /// A new directory under /tmp, mode 0700, removed with what it holds when this process
    /// exits (`TemporaryDirectories`), unless kept.
    package static func makeTemporaryDirectory(prefix: String) throws -> String {
        // mkdtemp replaces the six trailing X of its template.
        let pattern = "/tmp/\(prefix)-" + String(repeating: "X", count: 6)
        var template = Array(pattern.utf8CString)
        guard let result = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw DaemonProcessError("mkdtemp(\(pattern)) failed: \(String(cString: strerror(errno)))")
        }
        let path = String(cString: result)
        TemporaryDirectories.add(path)
        return path
    }

    // MARK: - Private

    private static func launch(socketPath: String, dataDir: String, extraArguments: [String], environment: [String: String]) throws -> Process {
        try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
        let logPath = dataDir + "/stashd.log"
        if !FileManager.default.fileExists(atPath: logPath) {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        let process = Process()
        process.executableURL = try executableURL(named: "stashd")
        process.arguments = ["--socket", socketPath, "--data-dir", dataDir] + extraArguments
        // Buses that are not there unless a test gives its own: a test daemon never takes the
        // machine's logind lock or shows a notification on its desktop.
        let noBus = "unix:path=\(dataDir)/no-bus"
        process.environment = ProcessInfo.processInfo.environment
            .merging(["DBUS_SYSTEM_BUS_ADDRESS": noBus, "DBUS_SESSION_BUS_ADDRESS": noBus]) { $1 }
            .merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
        try log.close()
        return process
    }

    private func waitUntilReady() async throws {
        let deadline = ContinuousClock.now + .seconds(Self.startTimeout)
        while ContinuousClock.now < deadline {
            guard process.isRunning else {
                throw DaemonProcessError("stashd exited with status \(process.terminationStatus) during start; its log:\n\(log())")
            }
            if Self.canConnect(to: socketPath) { return }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        throw DaemonProcessError("stashd did not accept connections on \(socketPath) within \(Int(Self.startTimeout)) s; its log:\n\(log())")
    }

    private static func canConnect(to path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0
    }
}
