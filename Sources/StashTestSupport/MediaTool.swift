import Foundation

/// ffmpeg, ffprobe and GStreamer's tools, found on PATH and run to completion with a timeout.
package enum MediaTool {
    /// How long one run may take before it is killed.
    static let timeout: TimeInterval = 180

    package static func path(of name: String) -> String? {
        if name.hasPrefix("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for directory in directories + ["/usr/bin", "/usr/local/bin"] {
            let candidate = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `name` with `arguments`; throws when it is missing, fails or (with
    /// `failOnStderr`) writes anything to stderr. Returns stdout.
    @discardableResult
    package static func run(_ name: String, _ arguments: [String], failOnStderr: Bool = false) throws -> String {
        guard let executable = path(of: name) else {
            throw HLSFixtureError("\(name) is not installed (looked in PATH); apt-get install ffmpeg")
        }
        let result = try DaemonProcess.run(executable: URL(fileURLWithPath: executable), arguments: arguments, timeout: timeout)
        let stderr = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        if result.status != 0 || (failOnStderr && !stderr.isEmpty) {
            let tail = stderr.split(separator: "\n", omittingEmptySubsequences: false).suffix(25).joined(separator: "\n")
            let what = result.status != 0 ? "exited with status \(result.status)" : "reported errors"
            throw HLSFixtureError("\(name) \(what): \(name) \(arguments.joined(separator: " "))\n\(tail)")
        }
        return result.stdout
    }
}
