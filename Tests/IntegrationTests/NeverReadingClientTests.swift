import Foundation
import NIOCore
import StashClient
import StashCore
import StashWire
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A client that pipelines requests of one kind and never reads an answer, on every path a
/// request takes (answered on the event loop, answered from a task, heavy answers, events):
/// stashd stays under 100 MB, and once the client has gone it is back within 20 MB of where
/// it started within 5 s. A bound that held for one path did not hold for another: GetStats,
/// answered from a task, grew stashd from 37 to 583 MB in a second while GetDownload stayed
/// at 39, and the memory stayed with the process after the client left.
final class NeverReadingClientTests: DaemonTestCase {
    private static let megabyte = 1 << 20
    private static let ceiling = 100 * megabyte
    private static let leftOver = 20 * megabyte
    /// About the records of issue 27's run: 4 KB of app data each.
    private static let appData = [UInt8](repeating: 0x61, count: 4096)

    override var daemonArguments: [String] { [] }

    func testAnswersMadeOnTheEventLoop() async throws {
        try await addPausedRecords(count: 20)
        try await assertBounded(pipelining: [.getDownload(id: "r0"), .hasDownload(id: "r1"), .getDownload(id: "missing")])
    }

    func testAnswersMadeInTasks() async throws {
        try await addPausedRecords(count: 20)
        try await assertBounded(pipelining: [.getStats, .getConfig, .pause(id: "r2"), .getSubtitles(id: "r3")])
    }

    func testListDownloadsPages() async throws {
        try await addPausedRecords(count: 500)
        try await assertBounded(pipelining: [.listDownloads(ListDownloadsRequest(pageSize: 500))])
    }

    /// A verify report and GetSystemInfo (which carries the last one) of 8,000 findings, about
    /// 2 MB each.
    func testVerifyReportsAndSystemInfo() async throws {
        let assets = daemon.dataDir + "/assets"
        try FileManager.default.createDirectory(atPath: assets, withIntermediateDirectories: true)
        let long = String(repeating: "a-stray-file-left-by-someone-else-", count: 6)
        for index in 0..<8000 {
            let path = assets + "/\(long)\(index)"
            let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            XCTAssertGreaterThanOrEqual(descriptor, 0, "\(path): \(String(cString: strerror(errno)))")
            close(descriptor)
        }
        let report = try await client.verify()
        XCTAssertEqual(report.findings.count, 8000)
        try await assertBounded(pipelining: [.verify(VerifyRequest()), .getSystemInfo])
    }

    /// A subscriber that never reads while another client makes every kind of event it can
    /// without a licence server: state changes, progress, removals, and the notice of events
    /// lost once its backlog is full.
    func testEventsOfEveryKindForASubscriberThatNeverReads() async throws {
        http.serve(path: "/trickle", size: 50_000_000)
        http.update(path: "/trickle") { $0.bytesPerSecond = 2_000_000 }
        for index in 0..<3 {
            _ = try await client.addDownload(AddDownloadRequest(id: "moving\(index)", uri: http.url("/trickle") + "?\(index)", appData: Self.appData))
        }
        // The replay buffer fills before the baseline: what it holds is the daemon's, not the subscriber's.
        try await churn(rounds: 800)
        try await assertBounded(subscribingWith: SubscribeRequest(minProgressStep: 1, minIntervalMs: 1)) {
            try await self.churn(rounds: 800)
        }
    }

    /// Subscribe after Subscribe, each asking for the whole replay buffer.
    func testSubscriptionsPipelinedOnOneConnection() async throws {
        try await churn(rounds: 800)
        try await assertBounded(pipelining: [.subscribe(SubscribeRequest(replayFromSeq: 1))])
    }

    /// Heavy requests take turns, but a slow one holds up only the heavy requests behind it:
    /// the GetStats pipelined after two plans, the first of a playlist that stalls, is answered
    /// first, and the second plan once the first is done.
    func testASlowHeavyRequestHoldsUpOnlyTheHeavyOnesBehindIt() async throws {
        http.serve(path: "/stalled.m3u8", body: Array("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n".utf8))
        http.update(path: "/stalled.m3u8") {
            // The plan is in flight for 2 s, far longer than a GetStats takes.
            $0.stallAfterBytes = 8
            $0.stallTimes = 1
            $0.stallSeconds = 2
        }
        let socket = try RawSocket(path: daemon.socketPath)
        socket.send(Request(id: 1, op: .hello(HelloRequest(clientName: "pipeline"))))
        _ = try socket.readResponse()
        socket.send(Request(id: 2, op: .getManifestInfo(uri: http.url("/stalled.m3u8"), headers: [])))
        socket.send(Request(id: 3, op: .getManifestInfo(uri: http.url("/stalled.m3u8") + "?again", headers: [])))
        socket.send(Request(id: 4, op: .getStats))
        XCTAssertEqual(try socket.readResponse().id, 4, "GetStats waited behind the plans")
        XCTAssertEqual(Set([try socket.readResponse().id, try socket.readResponse().id]), [2, 3])
    }

    // MARK: - Helpers

    /// Paused downloads r0, r1, … with 4 KB of app data each.
    private func addPausedRecords(count: Int) async throws {
        http.serve(path: "/held", size: 10_000_000)
        http.update(path: "/held") { $0.bytesPerSecond = 1000 }
        let client = self.client!
        let url = http.url("/held")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<8 {
                group.addTask {
                    for index in stride(from: lane, to: count, by: 8) {
                        _ = try await client.addDownload(AddDownloadRequest(id: "r\(index)", uri: url + "?\(index)", force: true, appData: Self.appData))
                    }
                }
            }
            try await group.waitForAll()
        }
        _ = try await client.pauseAll()
    }

    /// Adds, pauses, resumes and cancels downloads of 4 KB records: four state changes and a
    /// removal per round.
    private func churn(rounds: Int) async throws {
        let client = self.client!
        let url = "http://127.0.0.1:9/unreachable"
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<4 {
                group.addTask {
                    for round in stride(from: lane, to: rounds, by: 4) {
                        let id = "churn\(round)"
                        _ = try await client.addDownload(AddDownloadRequest(id: id, uri: url, force: true, appData: Self.appData))
                        _ = try await client.pause(id: id)
                        _ = try await client.resume(id: id)
                        try await client.cancel(id: id)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// A client says Hello, then writes `ops` again and again without reading until stashd
    /// stops taking them; then it leaves. stashd's peak must stay under 100 MB, and 5 s after
    /// the client left its resident set must be within 20 MB of where it was before.
    private func assertBounded(pipelining ops: [StashWire.Operation], file: StaticString = #filePath, line: UInt = #line) async throws {
        var burst = ByteBuffer()
        for index in 0..<1000 {
            WireCodec.encode(Request(id: UInt64(index + 2), op: ops[index % ops.count]), into: &burst)
        }
        let chunk = Array(burst.readableBytesView)
        try await assertBounded(ops.map(\.name).joined(separator: ", "), file: file, line: line) { greedy in
            let written = greedy.writeUntilRefused(chunk, limit: 256 << 20, quiet: 1)
            XCTAssertLessThan(written, 64 << 20, "stashd read \(written) bytes of requests whose answers nobody read", file: file, line: line)
        }
    }

    /// As above for a client that subscribes once and never reads, while `events` runs on
    /// another connection.
    private func assertBounded(
        subscribingWith request: SubscribeRequest, file: StaticString = #filePath, line: UInt = #line, events: @escaping () async throws -> Void
    ) async throws {
        try await assertBounded("Subscribe", file: file, line: line) { subscriber in
            subscriber.send(Request(id: 2, op: .subscribe(request)))
            XCTAssertNotNil(try subscriber.readResponse().result.success, file: file, line: line)
            try await events()
        }
    }

    private func assertBounded(
        _ what: String, file: StaticString, line: UInt, client act: (RawSocket) async throws -> Void
    ) async throws {
        let pid = daemon.pid
        let start = try Self.residentBytes(pid)
        let peak = PeakSampler(pid: pid)
        try await useAndClose(RawSocket(path: daemon.socketPath)) { greedy in
            greedy.send(Request(id: 1, op: .hello(HelloRequest(clientName: "never-reads"))))
            XCTAssertEqual(try greedy.readResponse().id, 1, file: file, line: line)
            try await act(greedy)
            // Meanwhile another client is served.
            _ = try await client.stats()
        }
        let deadline = Date().addingTimeInterval(5)
        var now = try Self.residentBytes(pid)
        while now > start + Self.leftOver, Date() < deadline {
            usleep(20_000)
            now = try Self.residentBytes(pid)
        }
        let highest = peak.stop()
        XCTAssertLessThan(
            highest, Self.ceiling, "\(what): stashd's RSS peaked at \(highest / Self.megabyte) MB (from \(start / Self.megabyte) MB)", file: file, line: line)
        XCTAssertLessThanOrEqual(
            now, start + Self.leftOver,
            "\(what): stashd holds \(now / Self.megabyte) MB 5 s after the client left, \(start / Self.megabyte) MB before it came", file: file, line: line)
    }

    /// The socket is closed when `body` returns: nothing else holds it.
    private func useAndClose(_ socket: RawSocket, _ body: (RawSocket) async throws -> Void) async throws {
        try await body(socket)
    }

    /// VmRSS from /proc, in bytes.
    static func residentBytes(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else {
            throw RawSocket.Failure(description: "no VmRSS in /proc/\(pid)/status")
        }
        return kilobytes * 1024
    }
}

/// Samples a process's resident set every 10 ms on a thread of its own until stopped.
private final class PeakSampler {
    // @unchecked Sendable: `highest` and `running` are used only under `lock`.
    private final class Shared: @unchecked Sendable {
        let lock = NSLock()
        var highest = 0
        var running = true
    }

    private let shared = Shared()

    init(pid: Int32) {
        let shared = self.shared
        Thread.detachNewThread {
            while true {
                let now = (try? NeverReadingClientTests.residentBytes(pid)) ?? 0
                let running = shared.lock.withLock {
                    shared.highest = max(shared.highest, now)
                    return shared.running
                }
                guard running else { return }
                usleep(10_000)
            }
        }
    }

    /// The highest value seen.
    func stop() -> Int {
        shared.lock.withLock {
            shared.running = false
            return shared.highest
        }
    }
}
