import StashCore

/// A transfer's content check as the body arrives: it keeps the body's first
/// `ContentSignature.window` bytes and asks `ContentCheck` once it has them (or the body
/// ended shorter), so a wrong body of 2 GB is refused after 512 bytes. Owned by the fetch thread.
struct ContentProbe {
    let check: ContentCheck
    private var prefix: [UInt8] = []
    /// The first bytes were judged (in this attempt, or in an earlier one that wrote them).
    private(set) var judged = false

    init(_ check: ContentCheck) {
        self.check = check
    }

    /// Whether a part file of `size` bytes can be resumed: its first bytes were judged when
    /// they were written; one shorter than the window was not, and is fetched again.
    func canResume(size: Int64) -> Bool {
        check.expectation == nil || size >= Int64(ContentSignature.window)
    }

    /// A new body from byte `offset`: from 0 the first bytes are judged again.
    mutating func restart(at offset: Int64) {
        prefix = []
        judged = check.expectation == nil || offset > 0
    }

    /// The refusal of a body whose announced size is below the minimum.
    func refusal(announced size: Int64?) -> String? {
        size.flatMap { check.refusal(size: $0, announced: true) }
    }

    /// Takes the next bytes of the body; the refusal once the first ones are enough to judge.
    mutating func take(_ bytes: UnsafeRawBufferPointer, contentType: String?, announced: Int64?) -> String? {
        guard !judged else { return nil }
        prefix.append(contentsOf: bytes.prefix(ContentSignature.window - prefix.count))
        guard prefix.count >= ContentSignature.window else { return nil }
        judged = true
        return check.refusal(prefix: prefix, complete: false, contentType: contentType, announced: announced)
    }

    /// The body ended with `size` bytes in the file: the refusal of a short body, or of first
    /// bytes not judged yet (a body shorter than the window).
    mutating func finish(size: Int64, contentType: String?) -> String? {
        if !judged {
            judged = true
            if let refusal = check.refusal(prefix: prefix, complete: true, contentType: contentType) { return refusal }
        }
        return check.refusal(size: size, announced: false)
    }
}
