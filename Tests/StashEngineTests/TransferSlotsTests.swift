@testable import StashEngine
import StashTestSupport
import XCTest

final class TransferSlotsTests: XCTestCase {
    private func caps(_ perDownload: Int, _ total: Int, _ perHost: Int) -> TransferSlots.Caps {
        TransferSlots.Caps(filesPerDownload: perDownload, maxConnections: total, maxConnectionsPerHost: perHost)
    }

    private func files(_ count: Int, host: String = "a", from start: Int = 0) -> [(index: Int, host: String)] {
        (start..<(start + count)).map { ($0, host) }
    }

    func testTheOldestDownloadGetsSlotsFirstAndEachDownloadItsOwnCap() {
        var slots = TransferSlots(caps: caps(2, 3, 10))
        slots.activate("new", seq: 5, files: files(4))
        slots.activate("old", seq: 1, files: files(4))
        XCTAssertEqual(slots.fill(), [.start(id: "old", index: 0), .start(id: "old", index: 1), .start(id: "new", index: 0)])
        XCTAssertEqual(slots.fill(), [], "every cap is reached")
        slots.ended("old", index: 0)
        XCTAssertEqual(slots.fill(), [.start(id: "old", index: 2)], "a freed slot goes to the oldest download")
    }

    func testAFullHostIsPassedByFilesOfOtherHosts() {
        var slots = TransferSlots(caps: caps(4, 10, 1))
        slots.activate("d", seq: 1, files: [(0, "a"), (1, "a"), (2, "b"), (3, "c")])
        XCTAssertEqual(slots.fill(), [.start(id: "d", index: 0), .start(id: "d", index: 2), .start(id: "d", index: 3)])
        slots.ended("d", index: 0)
        XCTAssertEqual(slots.fill(), [.start(id: "d", index: 1)])
    }

    func testADownloadWithNothingLeftIsIdleAndADeactivatedOneFreesItsSlots() {
        var slots = TransferSlots(caps: caps(2, 2, 2))
        slots.activate("done", seq: 1, files: [])
        slots.activate("busy", seq: 2, files: files(3))
        XCTAssertEqual(slots.fill(), [.idle(id: "done"), .start(id: "busy", index: 0), .start(id: "busy", index: 1)])
        XCTAssertEqual(Set(slots.deactivate("busy")), [0, 1])
        XCTAssertEqual(slots.connections, 0)
        slots.deactivate("done")
        XCTAssertEqual(slots.fill(), [])
    }

    func testASegmentConcurrencyReplacesThePerDownloadCap() {
        var slots = TransferSlots(caps: caps(1, 10, 10))
        slots.activate("hls", seq: 1, files: files(5), fileSlots: 3)
        XCTAssertEqual(slots.fill().count, 3)
    }

    /// Thousands of random inputs: the caps always hold, a transfer starts only for a waiting
    /// file of an active download and only once, a free slot never sits beside a startable
    /// file after `fill`, and every file of a download that stays active is started.
    func testRandomInputsKeepEveryInvariant() {
        var random = SeededRandom.seeded()
        for _ in 0..<200 {
            let limits = caps(Int.random(in: 1...4, using: &random), Int.random(in: 1...8, using: &random), Int.random(in: 1...3, using: &random))
            var slots = TransferSlots(caps: limits)
            var waiting: [String: [(index: Int, host: String)]] = [:]
            var seqs: [String: Int] = [:]
            var running: [String: [Int: String]] = [:]
            var nextSeq = 0
            for _ in 0..<60 {
                switch Int.random(in: 0..<10, using: &random) {
                case 0...2:
                    let id = "d\(nextSeq)"
                    let list = (0..<Int.random(in: 0...6, using: &random)).map { ($0, ["a", "b", "c"].randomElement(using: &random) ?? "a") }
                    slots.activate(id, seq: nextSeq, files: list)
                    seqs[id] = nextSeq
                    waiting[id] = list
                    running[id] = [:]
                    nextSeq += 1
                case 3:
                    guard let id = seqs.keys.randomElement(using: &random) else { continue }
                    XCTAssertEqual(Set(slots.deactivate(id)), Set(running[id]?.keys.map { $0 } ?? []))
                    seqs[id] = nil
                    waiting[id] = nil
                    running[id] = nil
                default:
                    if let id = running.filter({ !$0.value.isEmpty }).keys.randomElement(using: &random),
                       let index = running[id]?.keys.randomElement(using: &random) {
                        slots.ended(id, index: index)
                        running[id]?[index] = nil
                    }
                }
                for action in slots.fill() {
                    guard case .start(let id, let index) = action else { continue }
                    guard let position = waiting[id]?.firstIndex(where: { $0.index == index }) else {
                        return XCTFail("started \(id)#\(index), which was not waiting")
                    }
                    let host = waiting[id]?.remove(at: position).host ?? ""
                    running[id, default: [:]][index] = host
                }
                // The caps.
                let all = running.values.flatMap { $0.values }
                XCTAssertLessThanOrEqual(all.count, limits.maxConnections)
                XCTAssertEqual(all.count, slots.connections)
                for host in Set(all) { XCTAssertLessThanOrEqual(all.filter { $0 == host }.count, limits.maxConnectionsPerHost) }
                for transfers in running.values { XCTAssertLessThanOrEqual(transfers.count, limits.filesPerDownload) }
                // No slot left free beside a file that could use it.
                for (id, files) in waiting {
                    for file in files where (running[id]?.count ?? 0) < limits.filesPerDownload {
                        XCTAssertTrue(all.count >= limits.maxConnections || all.filter { $0 == file.host }.count >= limits.maxConnectionsPerHost,
                                      "\(id)#\(file.index) waits beside a free slot")
                    }
                }
            }
            // Ending every transfer, again and again, starts every file still waiting.
            while running.values.contains(where: { !$0.isEmpty }) || waiting.values.contains(where: { !$0.isEmpty }) {
                for (id, transfers) in running { for index in transfers.keys { slots.ended(id, index: index) } }
                running = running.mapValues { _ in [:] }
                let started = slots.fill().compactMap { action -> (String, Int)? in
                    if case .start(let id, let index) = action { return (id, index) } else { return nil }
                }
                if started.isEmpty && waiting.values.contains(where: { !$0.isEmpty }) {
                    return XCTFail("files wait and nothing starts: \(waiting)")
                }
                for (id, index) in started {
                    waiting[id]?.removeAll { $0.index == index }
                    running[id, default: [:]][index] = ""
                }
            }
        }
    }

    func testOlderDownloadsAreServedFirstAcrossRandomActivations() {
        var slots = TransferSlots(caps: caps(1, 1, 1))
        var random = SeededRandom.seeded()
        let seqs = Array(0..<50).shuffled(using: &random)
        for seq in seqs { slots.activate("d\(seq)", seq: seq, files: files(1)) }
        var served: [Int] = []
        while served.count < 50 {
            for action in slots.fill() {
                guard case .start(let id, _) = action, let seq = Int(id.dropFirst()) else { continue }
                served.append(seq)
                slots.ended(id, index: 0)
            }
        }
        XCTAssertEqual(served, Array(0..<50), "FIFO by download order")
    }
}
