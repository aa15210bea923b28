import Foundation
import StashClient

extension VerifyReport {
    var jsonObject: [String: Any] {
        [
            "findings": findings.map { finding -> [String: Any] in
                ["kind": finding.kind.name, "id": finding.id, "path": finding.path, "detail": finding.detail, "repaired": finding.repaired]
            },
            "downloadsChecked": downloadsChecked,
            "filesChecked": filesChecked,
            "digestsChecked": digestsChecked,
            "finishedAt": finishedAt.map { $0.ISO8601Format() as Any } ?? NSNull(),
            "durationMs": durationMs,
            "deep": deep,
            "repaired": repaired,
            "requeued": requeued,
            "filesDeleted": filesDeleted,
            "bytesFreed": bytesFreed,
        ]
    }

    /// One line per finding, then a summary line.
    var textLines: [String] {
        var lines = findings.map { finding in
            let owner = finding.id.isEmpty ? "" : " [\(finding.id)]"
            return "\(finding.kind.name)\(owner) \(finding.path): \(finding.detail)\(finding.repaired ? " (repaired)" : "")"
        }
        // With --deep, only the files that have a digest are read: say how many were.
        let digests = deep ? ", \(digestsChecked) of them by sha256" : ""
        var summary = "\(findings.count) finding(s) in \(downloadsChecked) download(s), \(filesChecked) file(s) checked\(digests) in \(durationMs) ms"
        if repaired {
            summary += "; repaired: \(requeued) download(s) re-queued, \(filesDeleted) file(s) deleted, \(Format.bytes(bytesFreed)) freed"
        }
        lines.append(summary)
        return lines
    }
}
