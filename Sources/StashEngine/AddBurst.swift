import Foundation
import StashCore

/// AddDownloads pipelined on one connection, decided in one turn on the engine
/// (`EngineState.decideAdds`, `Engine.add(_:)`): the new records go to the registry together
/// and are answered after one wait, where each add alone cost a task, a hop onto the engine
/// and a wake-up after its commit.
struct AddBurst {
    typealias Answer = Result<(download: Download, created: Bool), Error>

    /// In the order of the requests; nil until answered.
    var answers: [Answer?]
    /// The new downloads, each with the effects that enter it (its commit among them).
    var created: [(index: Int, download: Download, effects: [EngineEffect])] = []
    /// Replaces, and adds of content another download holds: answered one by one, after the rest.
    var alone: [(index: Int, new: NewDownload)] = []

    init(count: Int) {
        answers = Array(repeating: nil, count: count)
    }

    /// Every answer; one left out is an error of stash's own, not a trap.
    var finished: [Answer] {
        answers.map { $0 ?? .failure(Self.unanswered) }
    }

    /// The answer of a burst of one add.
    static func only(_ answers: [Answer]) throws -> (download: Download, created: Bool) {
        guard let answer = answers.first else { throw unanswered }
        return try answer.get()
    }

    private static let unanswered = StashError(.internal, "an add of a burst went unanswered")
}

extension EngineState {
    /// Decides each add of a burst in order, as one by one: a new download is entered at once,
    /// so the same URL twice in the burst is one download.
    mutating func decideAdds(_ adds: [Result<NewDownload, Error>], using generator: inout some RandomNumberGenerator) -> AddBurst {
        var burst = AddBurst(count: adds.count)
        for (index, add) in adds.enumerated() {
            do {
                let new = try add.get()
                switch try decideAdd(new, using: &generator) {
                case .existing(let download): burst.answers[index] = .success((layout.publicView(download), false))
                case .create(let download): burst.created.append((index, download, try on(.add(download))))
                case .replace, .heldBy: burst.alone.append((index, new))
                }
            } catch {
                burst.answers[index] = .failure(error)
            }
        }
        return burst
    }
}
