import StashCore
import StashDASH

extension Download {
    /// The download is a DASH package: its one playlist is the local MPD.
    var isDASHPackage: Bool { hlsPlaylists == [DASHPackage.manifestPath] }
}
