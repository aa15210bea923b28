import CStashProto
import StashCore

extension VerifyReport {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__VerifyReport> {
        var message = Stash__V1__VerifyReport()
        stash__v1__verify_report__init(&message)
        message.n_findings = findings.count
        message.findings = arena.array(findings) { finding -> UnsafeMutablePointer<Stash__V1__Finding>? in
            var wire = Stash__V1__Finding()
            stash__v1__finding__init(&wire)
            wire.kind = Stash__V1__FindingKind(rawValue: UInt32(finding.kind.rawValue))
            wire.id = arena.cString(finding.id)
            wire.path = arena.cString(finding.path)
            wire.detail = arena.cString(finding.detail)
            wire.repaired = WireValue.bool(finding.repaired)
            return arena.store(wire)
        }
        message.downloads_checked = UInt32(clamping: downloadsChecked)
        message.files_checked = UInt32(clamping: filesChecked)
        message.finished_at = finishedAt.map(WireValue.milliseconds) ?? 0
        message.duration_ms = UInt32(clamping: durationMs)
        message.deep = WireValue.bool(deep)
        message.repaired = WireValue.bool(repaired)
        message.requeued = UInt32(clamping: requeued)
        message.files_deleted = UInt32(clamping: filesDeleted)
        message.bytes_freed = UInt64(clamping: bytesFreed)
        message.digests_checked = UInt32(clamping: digestsChecked)
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__VerifyReport>) throws {
        let m = message.pointee
        self.init(
            findings: try WireValue.elements(m.findings, count: m.n_findings) { entry in
                let f = try WireValue.message(entry, field: "VerifyReport.findings").pointee
                // A kind from a newer daemon reads as unknown rather than failing the report.
                return VerifyFinding(
                    kind: VerifyFinding.Kind(rawValue: Int(f.kind.rawValue)) ?? .unknown,
                    id: try WireValue.string(f.id, field: "Finding.id"),
                    path: try WireValue.string(f.path, field: "Finding.path"),
                    detail: try WireValue.string(f.detail, field: "Finding.detail"),
                    repaired: WireValue.bool(f.repaired))
            },
            downloadsChecked: Int(m.downloads_checked),
            filesChecked: Int(m.files_checked),
            finishedAt: m.finished_at == 0 ? nil : WireValue.date(milliseconds: m.finished_at),
            durationMs: Int(m.duration_ms),
            deep: WireValue.bool(m.deep),
            repaired: WireValue.bool(m.repaired),
            requeued: Int(m.requeued),
            filesDeleted: Int(m.files_deleted),
            bytesFreed: try WireValue.int64(m.bytes_freed, field: "VerifyReport.bytes_freed"),
            digestsChecked: Int(m.digests_checked))
    }
}

extension PurgeResult {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__PurgeResult> {
        var message = Stash__V1__PurgeResult()
        stash__v1__purge_result__init(&message)
        message.files_deleted = UInt32(clamping: filesDeleted)
        message.bytes_freed = UInt64(clamping: bytesFreed)
        message.n_paths = paths.count
        message.paths = arena.array(paths) { Optional(arena.cString($0)) }
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__PurgeResult>) throws {
        let m = message.pointee
        self.init(
            filesDeleted: Int(m.files_deleted),
            bytesFreed: try WireValue.int64(m.bytes_freed, field: "PurgeResult.bytes_freed"),
            paths: try WireValue.elements(m.paths, count: m.n_paths) { try WireValue.string($0, field: "PurgeResult.paths") })
    }
}
