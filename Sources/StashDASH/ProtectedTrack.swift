/// A track an initialization segment says is encrypted: its sample entry's `sinf` (scheme
/// type and `tenc`, ISO/IEC 23001-7 section 8.2).
package struct ProtectedTrack: Equatable, Sendable {
    package var trackID: UInt32
    /// The four letters of `schm`: only `cenc` is decrypted.
    package var scheme: String
    /// `tenc`'s default KID (16 bytes).
    package var keyID: [UInt8]
    /// `tenc`'s default per-sample IV size: 8 or 16.
    package var ivSize: Int

    package init(trackID: UInt32, scheme: String, keyID: [UInt8], ivSize: Int) {
        self.trackID = trackID
        self.scheme = scheme
        self.keyID = keyID
        self.ivSize = ivSize
    }
}
