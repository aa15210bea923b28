import GRDB
import StashCore

/// Groups the writes of concurrent callers into one transaction. With synchronous=FULL every
/// commit costs an fsync; while one commit is on disk the next callers queue up and share the
/// following one, so the fsync rate stays bounded however many state changes arrive.
final class GroupCommitter: Sendable {
    typealias Done = @Sendable (Error?) -> Void
    private typealias Waiter = (write: RegistryWrite, done: Done)

    private let batches: BatchQueue<Waiter>
    /// The least time between two commits' starts. Under a stream of changes (2,000 small
    /// downloads, each saved when it starts and when it completes) commits otherwise follow
    /// each other as fast as the disk syncs, about one a millisecond with two changes each;
    /// spaced, a download's start and completion often share one commit, and its row is
    /// written once. A lone change waits for nothing: the last commit is long past.
    /// 6 ms rather than 3: the 2,000 took 173 commits rather than 331 and 28 % fewer log
    /// writes (bench/HISTORY.md, 2026-11-27 15:07 session); under load an answer or an event
    /// waits at most that long for its commit, and a download's slot is freed before it.
    static let spacing = Duration.milliseconds(6)

    init(pool: DatabasePool, apply: @escaping @Sendable (Database, RegistryWrite) throws -> Void) {
        batches = BatchQueue(label: "stash.registry.commit", spacing: Self.spacing) { batch in
            Self.commit(batch, pool: pool, apply: apply)
        }
    }

    /// Returns once a transaction holding `write` has committed, or throws its error.
    func submit(_ write: RegistryWrite) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            submit(write) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// Calls `done` on the commit thread once a transaction holding `write` has committed,
    /// with its error if it failed.
    func submit(_ write: RegistryWrite, done: @escaping Done) {
        batches.submit((write, done))
    }

    private static func commit(
        _ batch: [Waiter], pool: DatabasePool, apply: @Sendable (Database, RegistryWrite) throws -> Void
    ) {
        do {
            try pool.writeWithoutTransaction { db in
                // Statements kept prepared: GRDB's `write` prepares its BEGIN and COMMIT anew for
                // every transaction, two parses a commit (about 300 commits for 2,000 downloads).
                try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
                do {
                    for waiter in batch { try apply(db, waiter.write) }
                    try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
                } catch {
                    // SQLite may have rolled back already (a full disk, an I/O error).
                    if db.isInsideTransaction { try? db.cachedStatement(sql: "ROLLBACK TRANSACTION").execute() }
                    throw error
                }
            }
            // The callers' tasks go on from here: not as SCHED_BATCH (`DiskThreadPolicy`).
            DiskThreadPolicy.handingOff {
                for waiter in batch { waiter.done(nil) }
            }
        } catch {
            guard batch.count > 1 else {
                DiskThreadPolicy.handingOff { batch[0].done(error) }
                return
            }
            // One bad write must not fail its neighbours: retry each alone so only the
            // writes that fail by themselves report an error.
            for waiter in batch { commit([waiter], pool: pool, apply: apply) }
        }
    }
}
