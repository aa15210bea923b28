/// One encrypted sample of a fragment: the ranges of its bytes that are protected (the whole
/// sample, or each subsample's protected part) and the AES-CTR counter block they start at.
package struct CENCSample: Equatable, Sendable {
    /// Offsets in the segment's bytes, in order; the counter runs on from one to the next.
    package var protected: [Range<Int>]
    /// The sample's IV as a 16-byte counter block (an 8-byte IV is followed by 8 zero bytes).
    package var counter: [UInt8]
    package var keyID: [UInt8]
}
