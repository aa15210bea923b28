/// The bytes of one input, in chunks, in order: a rendition's init section and its segments,
/// each decrypted; or a subtitle rendition's files, one chunk each. `next` returns nil at the
/// end and throws what stops the export (a file missing, a key that does not decrypt, a
/// cancel); it is called on the remux's thread, one chunk at a time, so at most one chunk of
/// each input is held.
package struct ChunkSource {
    package let next: () throws -> [UInt8]?

    package init(next: @escaping () throws -> [UInt8]?) {
        self.next = next
    }

    /// The chunks of `chunks`, for tests and in-memory inputs.
    package static func chunks(_ chunks: [[UInt8]]) -> ChunkSource {
        var index = 0
        return ChunkSource {
            guard index < chunks.count else { return nil }
            defer { index += 1 }
            return chunks[index]
        }
    }
}
