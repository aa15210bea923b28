import Foundation
import StashCore

/// Entries of an asset folder to delete (a removed subtitle's folder or file), with the
/// folders that hold them opened from the asset folder's descriptor before anything changes:
/// a symlink where a folder should be refuses the whole removal, and the deletions later go
/// through the folders opened here, so nothing outside the asset folder is reached even if a
/// symlink is planted meanwhile.
struct AssetRemoval {
    private let asset: FolderHandle?
    private var entries: [(folder: FolderHandle, name: String)] = []

    /// Opens the folders of `paths` (relative to `assetFolder`). A folder that is missing
    /// holds nothing to delete; a symlink or a file in the way is FAILED_PRECONDITION naming it.
    init(assetFolder: String, paths: [String]) throws {
        do {
            asset = try FolderHandle.open(assetFolder, followingSymlink: false)
        } catch let error as SystemCallError where error.errnoCode == ENOENT {
            asset = nil
            return
        } catch {
            throw Self.refusal(assetFolder, error)
        }
        guard let asset else { return }
        do {
            for path in paths {
                let components = path.split(separator: "/", omittingEmptySubsequences: false)
                guard let name = components.last.map(String.init), !name.isEmpty else { continue }
                do {
                    entries.append((try asset.descend(components.dropLast()), name))
                } catch let error as SystemCallError where error.errnoCode == ENOENT {
                    continue
                } catch {
                    throw Self.refusal(assetFolder + "/" + components.dropLast().joined(separator: "/"), error)
                }
            }
        } catch {
            release()
            throw error
        }
    }

    private static func refusal(_ path: String, _ error: Error) -> StashError {
        let code = (error as? SystemCallError)?.errnoCode
        let why = code == ELOOP || code == ENOTDIR ? "is a symlink or a file where a folder should be; stash follows no symlink" : "cannot be opened (\(error))"
        return StashError(.failedPrecondition, "\(path) \(why); nothing was removed (`stash verify --repair` deletes what is in the way)")
    }

    /// Deletes each entry (a folder with everything in it, without following a symlink);
    /// returns the paths of those still there.
    func remove() -> [String] {
        var left: [String] = []
        for (folder, name) in entries {
            folder.removeEntry(name)
            if (try? folder.statusIfPresent(name)) != nil { left.append(folder.path + "/" + name) }
        }
        return left
    }

    /// Deletes the folder `name` of the asset folder when it is empty (ENOTEMPTY is no failure:
    /// an HLS package keeps its renditions' folders there).
    func removeFolderIfEmpty(_ name: String) {
        guard let asset else { return }
        let folder = asset.descriptor
        _ = try? SystemCallError.check("rmdir", asset.path + "/" + name) { unlinkat(folder, name, AT_REMOVEDIR) }
    }

    func release() {
        asset?.release()
        for (folder, _) in entries { folder.release() }
    }
}
