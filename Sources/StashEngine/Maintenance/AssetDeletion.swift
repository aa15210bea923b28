import Foundation
import StashCore
import StashKeys

/// What deleting a removed download takes (`EngineState.deletion(of:)`): its folder and, for
/// an HLS download, its keys. Blocking file work: it runs on the `FilePool`.
struct AssetDeletion: Equatable, Sendable {
    let id: String
    let folder: String
    let deletesKeys: Bool

    func run(keys: KeyStore) throws {
        try Self.removeFolder(folder)
        guard deletesKeys else { return }
        do {
            try keys.deleteAll(asset: id)
        } catch {
            throw StashError(.internal, "could not delete the keys of '\(id)': \(error)")
        }
    }

    /// Deletes a download's folder. A folder already gone, or emptied by someone else at the
    /// same time (a purge taking it for an orphan), is deleted all the same: only an error that
    /// leaves it in place is one.
    static func removeFolder(_ folder: String) throws {
        var failure: Error?
        for _ in 0..<3 {
            do {
                guard try SystemCallError.status(folder, followingSymlink: false) != nil else { return }
                try FileManager.default.removeItem(atPath: folder)
                return
            } catch {
                failure = error
            }
        }
        let reason = (failure as? SystemCallError).map { "\($0)" } ?? failure?.localizedDescription ?? "unknown error"
        throw StashError(.internal, "could not delete \(folder): \(reason)")
    }
}
