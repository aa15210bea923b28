import Foundation
import StashCore
import StashFetch
import StashTestSupport
import XCTest

@testable import StashEngine

/// Random adds, moves, priority changes, pauses, resumes, cancels and completions on
/// `EngineState` keep the queue's rules after every input: max-parallel holds; no download
/// waits while a slot is free; with preempt, none runs while one of higher priority waits;
/// each download that starts is the first of a model queue kept by the rules (FIFO within a
/// priority, a move where it says, a download put back first of its priority); no id is lost.
/// The seed is printed; `STASH_TEST_SEED=<n>` replays it.
final class QueuePropertyTests: XCTestCase {
    /// The queue as the rules say it must be, and what runs.
    private struct Model {
        var queue: [String] = []
        var priority: [String: DownloadPriority] = [:]
        var running: [UInt64: String] = [:]
        var added: [String] = []
        var durable: Set<String> = []
        var cancelled: Set<String> = []

        mutating func remove(_ id: String) { queue.removeAll { $0 == id } }

        /// At the end (or the front) of its priority's downloads.
        mutating func insert(_ id: String, front: Bool) {
            remove(id)
            let band = priority[id] ?? .normal
            let index =
                front
                ? queue.firstIndex { (priority[$0] ?? .normal) <= band } ?? queue.endIndex
                : queue.firstIndex { (priority[$0] ?? .normal) < band } ?? queue.endIndex
            queue.insert(id, at: index)
        }
    }

    func testRandomQueueInputsKeepPriorityOrderCapsAndEveryID() throws {
        var random = SeededRandom.seeded()
        let seed = random.seed
        for run in 0..<120 {
            let preempt = Bool.random(using: &random)
            var state = EngineStateTests.makeState {
                $0.maxParallel = Int.random(in: 1...3, using: &random)
                $0.preempt = preempt
                $0.storageReserve = 0
            }
            var model = Model()
            for step in 0..<150 {
                let (input, label) = Self.randomInput(&random, state: state, model: &model)
                // An add's durable step follows it at once, as in `Engine.add`; what a request
                // does to a download between the two is not modelled.
                var inputs = [input]
                if case .add(let download) = input { inputs.append(.added(download.id)) }
                for input in inputs {
                    let context = "seed \(seed), run \(run), step \(step), \(label), preempt \(preempt)"
                    let before = state
                    let effects: [EngineEffect]
                    do {
                        effects = try state.on(input)
                    } catch let error as StashError {
                        XCTAssertTrue([.failedPrecondition, .notFound, .invalidArgument].contains(error.code), "\(error): \(context)")
                        continue
                    }
                    Self.applyRequest(input, before: before, to: &model)
                    Self.apply(effects, to: &model, state: state, context: context)
                }
                Self.check(state, model, preempt: preempt, context: "seed \(seed), run \(run), step \(step), \(label), preempt \(preempt)")
                if testRun?.failureCount ?? 0 > 0 { return }
            }
        }
    }

    private static func randomInput(_ random: inout SeededRandom, state: EngineState, model: inout Model) -> (EngineInput, String) {
        let someID = model.added.randomElement(using: &random) ?? "none"
        let priority = DownloadPriority.allCases.randomElement(using: &random)!
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<18:
            let id = "d\(model.added.count)"
            model.added.append(id)
            model.durable.insert(id)
            var download = EngineStateTests.download(id, host: "h\(Int.random(in: 0..<3, using: &random)).test")
            download.priority = priority
            return (.add(download), "add \(id) \(priority.name)")
        case 18..<22:
            return (.schedule, "schedule")
        case 30..<40: return (.setDownload(DownloadChanges(id: someID, priority: priority)), "set \(someID) \(priority.name)")
        case 40..<55:
            let other = Bool.random(using: &random) ? someID : (model.added.randomElement(using: &random) ?? "none")
            let move: QueueMove = [.top, .bottom, .before(other), .after(other)].randomElement(using: &random)!
            return (.move(someID, move), "move \(someID) \(move)")
        case 55..<60: return (.pause(someID), "pause \(someID)")
        case 60..<66: return (.resume(someID), "resume \(someID)")
        case 66..<69:
            model.cancelled.insert(someID)
            return (.cancel(someID), "cancel \(someID)")
        case 69..<72:
            return (.removed(someID), "removed \(someID)")
        default:
            guard let (generation, id) = model.running.randomElement(using: &random) else { return (.schedule, "schedule") }
            let notice = FetchNotice(id: id, index: 0, generation: generation, event: .completed(bytes: 100, sha256: ""))
            return (.transfer(notice), "complete \(id)")
        }
    }

    /// What a request itself does to the model queue, before the effects of the schedule it runs.
    private static func applyRequest(_ input: EngineInput, before state: EngineState, to model: inout Model) {
        switch input {
        case .add(let download):
            model.priority[download.id] = download.priority
        case .added(let id):
            if state.entries[id]?.download.state == .queued, !model.queue.contains(id) { model.insert(id, front: false) }
        case .setDownload(let changes):
            guard let priority = changes.priority else { break }
            let id = changes.id
            let wasQueued = model.queue.contains(id)
            let changed = model.priority[id] != priority
            model.priority[id] = priority
            if wasQueued, changed { model.insert(id, front: false) }
        case .move(let id, let move):
            if let other = move.other { model.priority[id] = model.priority[other] }
            model.remove(id)
            let band = model.priority[id] ?? .normal
            let index: Int
            switch move {
            case .top: index = model.queue.firstIndex { (model.priority[$0] ?? .normal) <= band } ?? model.queue.endIndex
            case .bottom: index = model.queue.firstIndex { (model.priority[$0] ?? .normal) < band } ?? model.queue.endIndex
            case .before(let other): index = model.queue.firstIndex(of: other) ?? 0
            case .after(let other): index = (model.queue.firstIndex(of: other) ?? 0) + 1
            }
            model.queue.insert(id, at: index)
        default:
            break
        }
    }

    private static func apply(_ effects: [EngineEffect], to model: inout Model, state: EngineState, context: String) {
        for effect in effects {
            switch effect {
            case .flightStarted(let id):
                XCTAssertEqual(id, model.queue.first, "started out of order \(model.queue): \(context)")
                model.remove(id)
            case .startTransfer(let id, _, let generation, _):
                model.running[generation] = id
            case .stopTransfers(_, let generations):
                for generation in generations { model.running[generation] = nil }
            case .commit(_, .stateChanged(let announced, let previous)?):
                let id = announced.id
                if announced.state != .queued {
                    model.remove(id)
                    if !announced.state.isActive { model.running = model.running.filter { $0.value != id } }
                } else if previous != .queued, previous != .notDownloaded {
                    // Put back (preempted): first of its priority; resumed: last.
                    model.insert(id, front: previous.isActive)
                }
            case .commit(.delete(let id)?, _):
                model.remove(id)
            default:
                continue
            }
        }
    }

    private static func check(_ state: EngineState, _ model: Model, preempt: Bool, context: String) {
        // A download is QUEUED from its add, but waits for a slot only once the add is durable
        // (`.added`), unless a resume sent it there first.
        let queued = state.order.filter {
            state.entries[$0]?.download.state == .queued && (model.durable.contains($0) || model.queue.contains($0))
        }
        var copy = state
        let ordered = copy.queuePage(group: "", after: -1, limit: .max).entries.map(\.download.id).filter { state.isWaiting($0) }
        XCTAssertEqual(ordered, model.queue, "queue order: \(context)")
        XCTAssertEqual(Set(ordered), Set(queued), "the queue holds exactly the QUEUED downloads: \(context)")
        let active = state.queue.active
        XCTAssertLessThanOrEqual(active.count, state.config.maxParallel, "max-parallel: \(context)")
        if active.count < state.config.maxParallel {
            XCTAssertEqual(queued, [], "a download waits while a slot is free: \(context)")
        }
        if preempt, let first = ordered.first, let waiting = state.entries[first]?.download.priority {
            for id in active {
                guard let entry = state.entries[id], !entry.activity.isCompleting else { continue }
                XCTAssertGreaterThanOrEqual(entry.download.priority, waiting, "\(id) runs while \(first) of higher priority waits: \(context)")
            }
        }
        for id in model.added where !model.cancelled.contains(id) {
            XCTAssertNotNil(state.entries[id], "\(id) is lost: \(context)")
        }
    }
}
