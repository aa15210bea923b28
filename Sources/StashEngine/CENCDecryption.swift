import Foundation
import StashCore
import StashDASH
import StashKeys

/// Decrypts a ClearKey CENC DASH package as it is read: each folder's initialization segment
/// made clear first (`CENCInit`), which says the folder's protected tracks and KIDs, then each
/// of its segments (`CENCFragment`) with the keys sealed under `keys/<kid>`. A folder whose
/// initialization segment protects nothing is passed through.
final class CENCDecryption {
    let reader: PackageReader
    private var tracks: [String: [ProtectedTrack]] = [:]

    init(reader: PackageReader) {
        self.reader = reader
    }

    /// `data`, the file at `path`, clear. A file with a `moov` box is its folder's
    /// initialization segment, which the record lists before the folder's segments.
    func clear(_ data: [UInt8], path: String) throws -> [UInt8] {
        let folder = (path as NSString).deletingLastPathComponent
        // A WebVTT file of a text track is text, never encrypted.
        guard !path.hasSuffix(".vtt") else { return data }
        do {
            if CENCInit.isInitialization(data) {
                let (bytes, found) = try CENCInit.clear(data)
                tracks[folder] = found
                return bytes
            }
            let fragment = try CENCFragment(data, tracks: tracks[folder] ?? [])
            var bytes = fragment.bytes
            for sample in fragment.samples {
                let key = try reader.key("keys/" + sample.keyID.map { String(format: "%02x", $0) }.joined())
                try SampleCipher.decrypt(&bytes, protected: sample.protected, key: key, counter: sample.counter)
            }
            return bytes
        } catch let error as CENCError {
            let code: StashError.Code = error.code == .unsupported ? .unimplemented : .failedPrecondition
            throw StashError(code, "cannot decrypt \(reader.folder)/\(path): \(error.message)")
        } catch let error as KeysError {
            throw StashError(.failedPrecondition, "cannot decrypt \(reader.folder)/\(path): \(error)")
        }
    }
}
