import Foundation
import StashTestSupport
import XCTest

/// A `stash` command running in the background while the test acts, its output read as it
/// comes. With `terminal`, it runs on a pseudo-terminal made by util-linux `script`, so it
/// draws and asks as it does for a person: stdout and stderr then arrive together in `stdout`,
/// and `type` writes to the terminal as keys would.
final class CLIProcess {
    private let process = Process()
    private let directory: String
    private let input = Pipe()

    init(_ arguments: [String], terminal: Bool = false) throws {
        directory = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-cli")
        for name in ["stdout", "stderr"] { _ = FileManager.default.createFile(atPath: "\(directory)/\(name)", contents: nil) }
        let stash = try DaemonProcess.executableURL(named: "stash")
        if terminal {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            // -e: the command's exit status; -f: output flushed as it is written.
            let command = ([stash.path] + arguments).map(Self.shellQuoted).joined(separator: " ")
            process.arguments = ["-qefc", command, "/dev/null"]
        } else {
            process.executableURL = stash
            process.arguments = arguments
        }
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(directory)/stdout"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(directory)/stderr"))
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    var stdout: String { (try? String(contentsOfFile: "\(directory)/stdout", encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: "\(directory)/stderr", encoding: .utf8)) ?? "" }

    /// Writes to the command's stdin (the terminal's keys, with `terminal`).
    func type(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Polls until `condition` holds for the output so far; false after `timeout`.
    func waitForOutput(timeout: TimeInterval = 20, _ condition: (String) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if condition(stdout) { return true }
            usleep(20_000)
        }
        return condition(stdout)
    }

    /// The exit status, or nil when it is still running after `timeout` (then it is killed).
    func waitForExit(timeout: TimeInterval = 20) -> Int32? {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        return process.terminationStatus
    }

    private static func shellQuoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
