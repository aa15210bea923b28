import Foundation
import StashCore
import StashFetch
import Synchronization
import StashTestSupport
import XCTest

@testable import StashEngine

/// Random sequences of inputs to `EngineState` (adds, pauses, resumes, stops, cancels, cap
/// changes, transfer reports, teardowns, folder syncs, storage rechecks, stale events) keep
/// its invariants after every input. The seed is printed; `STASH_TEST_SEED=<n>` replays it.
final class EngineStatePropertyTests: XCTestCase {
    /// What the fetch service and the registry would see of the effects.
    private struct World {
        var running: [UInt64: (id: String, index: Int, host: String)] = [:]
        /// Generations stopped: their late events must change nothing.
        var stale: [(id: String, index: Int, generation: UInt64)] = []
        var pendingStops: [String] = []
        var pendingSyncs: [(id: String, synced: Int)] = []
        /// Downloads a retry timer was armed for (`.retryDue` fires it).
        var pendingRetries: [String] = []
        var added: [String] = []
        /// Adds whose durable step (`.added`) came.
        var durable: Set<String> = []
        var cancelled: Set<String> = []
        /// The state each download's last committed state change announced.
        var committed: [String: DownloadState] = [:]
    }

    private final class Free: Sendable {
        let bytes = Mutex<Int64>(1 << 40)
    }

    func testRandomInputsKeepTheEnginesInvariants() throws {
        var random = SeededRandom.seeded()
        let seed = random.seed
        for run in 0..<150 {
            let free = Free()
            var state = EngineStateTests.makeState()
            state = EngineState(
                config: Self.randomConfig(&random), layout: state.layout, clock: state.clock,
                disk: DiskGauge(freeBytes: { free.bytes.withLock { $0 } }, fileSize: { _ in nil }))
            var world = World()
            for step in 0..<120 {
                let context = "seed \(seed), run \(run), step \(step)"
                let (input, label) = Self.randomInput(&random, state: state, world: &world, free: free)
                let effects: [EngineEffect]
                do {
                    effects = try state.on(input)
                } catch let error as StashError where error.code == .failedPrecondition || error.code == .notFound {
                    // A request that does not apply in the download's state: refused, nothing changed.
                    continue
                }
                Self.apply(effects, to: &world, state: state, context: "\(context), \(label)")
                if case .transfer = input { Self.apply(try state.on(.schedule), to: &world, state: state, context: "\(context), schedule") }
                Self.checkInvariants(state, world, context: "\(context), after \(label)")
                if testRun?.failureCount ?? 0 > 0 { return }
            }
        }
    }

    private static func randomConfig(_ random: inout SeededRandom) -> DaemonConfig {
        var config = DaemonConfig()
        config.maxParallel = Int.random(in: 1...3, using: &random)
        config.filesPerDownload = Int.random(in: 1...3, using: &random)
        config.maxConnections = Int.random(in: 1...5, using: &random)
        config.maxConnectionsPerHost = Int.random(in: 1...3, using: &random)
        config.storageReserve = 0
        return config
    }

    private static let hosts = ["h0.test", "h1.test", "h2.test"]

    private static func randomInput(_ random: inout SeededRandom, state: EngineState, world: inout World, free: Free) -> (EngineInput, String) {
        let known = world.added
        let someID = known.randomElement(using: &random) ?? "none"
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<14:
            let id = "d\(world.added.count)"
            world.added.append(id)
            let count = Int.random(in: 1...4, using: &random)
            let files = (0..<count).map { index in
                DownloadFile(url: "http://\(hosts.randomElement(using: &random)!)/\(id)/\(index)", path: "\(index).bin")
            }
            let download = Download(id: id, uri: count == 1 ? files[0].url : "", title: "", state: .queued, assetPath: "assets/\(id)",
                                    isBundle: count > 1, files: files)
            // The add and its durable step are one input each; the second is queued behind.
            return (.add(download), "add \(id)")
        case 14..<20:
            if let id = world.added.first(where: { !world.durable.contains($0) }) {
                world.durable.insert(id)
                return (.added(id), "added \(id)")
            }
            return (.schedule, "schedule")
        case 20..<25: return (.pause(someID), "pause \(someID)")
        case 25..<31: return (.resume(someID), "resume \(someID)")
        case 31..<34: return (.stop(someID, reason: "app"), "stop \(someID)")
        case 34..<37:
            world.cancelled.insert(someID)
            return (.cancel(someID), "cancel \(someID)")
        case 37..<39:
            var config = state.config
            config.maxParallel = Int.random(in: 1...3, using: &random)
            config.maxConnections = Int.random(in: 1...5, using: &random)
            config.maxConnectionsPerHost = Int.random(in: 1...3, using: &random)
            return (.configChanged(config), "config \(config.maxParallel)/\(config.maxConnections)/\(config.maxConnectionsPerHost)")
        case 39..<44 where !world.pendingStops.isEmpty:
            let id = world.pendingStops.removeFirst()
            return (.transfersStopped(id), "stopped \(id)")
        case 44..<48 where !world.pendingSyncs.isEmpty:
            let sync = world.pendingSyncs.removeFirst()
            let failure = Int.random(in: 0..<10, using: &random) == 0 ? DownloadError(.storage, "sync failed") : nil
            return (.foldersSynced(sync.id, failure: failure, synced: sync.synced), "synced \(sync.id)")
        case 48..<51 where !world.pendingRetries.isEmpty && Bool.random(using: &random):
            let id = world.pendingRetries.removeFirst()
            return (.retryDue(id), "retry due \(id)")
        case 48..<51:
            free.bytes.withLock { $0 = Bool.random(using: &random) ? 1 << 40 : Int64.random(in: 0...20_000, using: &random) }
            return (.storageRecheckDue, "recheck")
        case 51..<54 where !world.stale.isEmpty:
            let old = world.stale.randomElement(using: &random)!
            return (.transfer(FetchNotice(id: old.id, index: old.index, generation: old.generation, event: .completed(bytes: 1, sha256: ""))),
                    "stale event of \(old.id)#\(old.index)")
        default:
            guard let (generation, transfer) = world.running.randomElement(using: &random) else { return (.schedule, "schedule") }
            let file = state.entries[transfer.id]?.download.files[transfer.index]
            let bytes = file?.downloadedBytes ?? 0
            let event: FetchEvent
            switch Int.random(in: 0..<10, using: &random) {
            case 0, 1:
                let total: Int64? = Bool.random(using: &random) ? Int64.random(in: 1...10_000, using: &random) : nil
                event = .started(FetchResponseInfo(httpStatus: 200, resumedFrom: Bool.random(using: &random) ? bytes : 0,
                                                   totalBytes: total, etag: nil, lastModified: nil))
            case 2, 3: event = .progress(downloadedBytes: bytes + Int64.random(in: 0...3000, using: &random), totalBytes: nil)
            case 4, 5, 6: event = .completed(bytes: bytes + Int64.random(in: 1...3000, using: &random), sha256: "")
            case 7: event = .failed(DownloadError(.http, "HTTP 500"))
            case 8: event = Bool.random(using: &random) ? .waitingForNetwork : .noSpace(DownloadError(.storage, "ENOSPC"))
            // No delay: the state's clock stands still, and the timer is due when it fires.
            default: event = .retryLater(attempt: 1, delayMs: 0, error: DownloadError(.network, "reset"))
            }
            if event.isFinal { world.running[generation] = nil }
            return (.transfer(FetchNotice(id: transfer.id, index: transfer.index, generation: generation, event: event)), "\(event) of \(transfer.id)#\(transfer.index)")
        }
    }

    /// Plays the effects into the world, checking each order as it comes.
    private static func apply(_ effects: [EngineEffect], to world: inout World, state: EngineState, context: String) {
        let caps = state.config
        for effect in effects {
            switch effect {
            case .startTransfer(let id, let index, let generation, let request):
                XCTAssertFalse(world.cancelled.contains(id), "a cancelled download starts a transfer: \(context)")
                let host = URLComponents(string: request.url)?.host ?? ""
                world.running[generation] = (id, index, host)
                let running = world.running.values
                XCTAssertLessThanOrEqual(running.count, caps.maxConnections, "max-connections: \(context)")
                XCTAssertLessThanOrEqual(running.filter { $0.host == host }.count, caps.maxConnectionsPerHost, "per host: \(context)")
                XCTAssertLessThanOrEqual(running.filter { $0.id == id }.count, caps.filesPerDownload, "per download: \(context)")
            case .stopTransfers(let id, let generations):
                for generation in generations {
                    guard let transfer = world.running.removeValue(forKey: generation) else {
                        XCTFail("a stop of a transfer that does not run: \(context)")
                        continue
                    }
                    XCTAssertEqual(transfer.id, id, context)
                    world.stale.append((id, transfer.index, generation))
                }
                world.pendingStops.append(id)
            case .flightStarted(let id):
                XCTAssertFalse(world.cancelled.contains(id), "a cancelled download starts again: \(context)")
            case .startPlanning(_, let download, _):
                XCTFail("\(download.id) has no playlist to plan: \(context)")
            case .syncFolders(let id, _, let synced):
                world.pendingSyncs.append((id, synced))
            case .arm(_, .retryDue(let id)):
                world.pendingRetries.append(id)
            case .commit(let change, .stateChanged(let announced, _)?):
                // Commit before publish: the announced state is the one this commit writes.
                switch change {
                case .save(let record)?, .add(let record)?:
                    XCTAssertEqual(record.id, announced.id, context)
                    XCTAssertEqual(record.state, announced.state, "published \(announced.state.name), committed \(record.state.name): \(context)")
                default:
                    XCTFail("\(announced.id)'s \(announced.state.name) is published without its record: \(context)")
                }
                world.committed[announced.id] = announced.state
            default:
                continue
            }
        }
    }

    private static func checkInvariants(_ state: EngineState, _ world: World, context: String) {
        XCTAssertEqual(state.order.count, Set(state.order).count, "an id twice in the list: \(context)")
        XCTAssertEqual(state.entries.count, state.order.count, "entries and list differ: \(context)")
        for id in world.added {
            XCTAssertNotNil(state.entries[id], "\(id) is lost: \(context)")
        }
        XCTAssertLessThanOrEqual(state.queue.active.count, state.config.maxParallel, "max-parallel: \(context)")
        let activeStates = Set(state.order.filter { state.entries[$0]?.lifecycle.state.isActive == true })
        XCTAssertEqual(state.queue.active, activeStates, "download slots are held by exactly the active downloads: \(context)")
        for id in state.order {
            guard let entry = state.entries[id] else { continue }
            let download = entry.download
            XCTAssertEqual(download.state, entry.lifecycle.state, context)
            XCTAssertEqual(world.committed[id] ?? .queued, download.state, "\(id)'s state is not the one committed: \(context)")
            XCTAssertEqual(download.downloadedBytes, download.files.saturatingSum(\.downloadedBytes), "\(id)'s bytes are not its files' sum: \(context)")
            XCTAssertEqual(download.filesDone, download.files.filter(\.done).count, "\(id)'s files done: \(context)")
            let running = Set(world.running.filter { $0.value.id == id }.map(\.key))
            XCTAssertEqual(Set(entry.activity.transfers.values), running, "\(id)'s transfers: \(context)")
            if entry.lifecycle.state.isActive, entry.activity.transfers.isEmpty, !entry.activity.isCompleting, !state.slots.hasWaiting(id) {
                XCTAssertFalse(state.waitsToRetry(id), "\(id) holds its slot with only files waiting to retry: \(context)")
            }
            if state.queue.deferral(of: id) != nil {
                XCTAssertEqual(download.state, .queued, "\(id) waits for its retry's time in \(download.state.name): \(context)")
                XCTAssertTrue(world.pendingRetries.contains(id), "\(id) waits for a retry no timer will fire: \(context)")
            }
        }
        for id in state.retries.keys {
            let waits = state.entries[id].map { $0.lifecycle.state.isActive || $0.lifecycle.state == .queued } ?? false
            XCTAssertTrue(waits, "\(id)'s retry attempts outlive its run: \(context)")
        }
        XCTAssertGreaterThanOrEqual(state.sessionBytes, 0, context)
    }
}
