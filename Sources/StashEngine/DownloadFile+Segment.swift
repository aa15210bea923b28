import CLinux
import Foundation
import StashCore

extension DownloadFile {
    /// A segment of a package (HLS or DASH) in `folder`, checked for its container's signature
    /// when it is known. A segment already at its final path, of its size when known, is
    /// complete (it is renamed there only then): a package planned again after a crash or a
    /// repair fetches only what is missing. One that cannot be looked at is fetched again.
    static func segment(url: String, path: String, size: Int64?, rangeOffset: Int64?, container: SegmentContainer?, in folder: String) -> DownloadFile {
        var file = DownloadFile(
            url: url, path: path, size: size, rangeOffset: rangeOffset, expect: container.map { ContentExpectation.segment($0).description } ?? "")
        if let info = try? SystemCallError.status(folder + "/" + path, followingSymlink: false), info.st_mode & S_IFMT == S_IFREG,
            size == nil || size == Int64(info.st_size)
        {
            file.done = true
            file.size = Int64(info.st_size)
            file.downloadedBytes = Int64(info.st_size)
        }
        return file
    }
}
