import Foundation

/// The checks on one file's body: what it must be (`ContentExpectation`) and how small it may
/// be (`minSize`). A pure decision from the response's Content-Type, the body's first bytes
/// and its size; the fetch path feeds it (`ContentProbe`) and fails the file on a refusal.
package struct ContentCheck: Equatable, Sendable {
    package var expectation: ContentExpectation?
    /// Bytes the complete body must have at least; 0 for no minimum.
    package var minSize: Int64
    /// The file's path in its asset, which every refusal starts with; empty where the caller
    /// names the file itself (the engine does for a file of a bundle or a package).
    package var label: String

    /// Bytes every format of `ContentSignature` needs to be told (a WebP's or WAV's RIFF form
    /// ends at 12); no image, video or audio file is shorter.
    static let shortestMedia = 12

    package init(expectation: ContentExpectation?, minSize: Int64 = 0, label: String) {
        self.expectation = expectation
        self.minSize = minSize
        self.label = label
    }

    /// The check of a download's file (whose rules the add resolved, `ContentRules.inheriting`);
    /// nil when there is nothing to check.
    package init?(file: DownloadFile, labelled: Bool = true) {
        let expect = ContentExpectation(stored: file.expect)
        guard expect != nil || file.minSize > 0 else { return nil }
        self.init(expectation: expect, minSize: file.minSize, label: labelled ? file.path : "")
    }

    /// Whether the first bytes are worth keeping: nil when `prefix` (the body's first
    /// `ContentSignature.window` bytes, or all of it when `complete`) fits the expectation,
    /// else the refusal. `contentType` is the response's header, as sent; `announced` the
    /// body's size when the response named it.
    package func refusal(prefix: [UInt8], complete: Bool, contentType: String?, announced: Int64? = nil) -> String? {
        guard let expectation else { return nil }
        let signature = ContentSignature.identify(prefix, complete: complete)
        let type = contentType.map(Self.essence) ?? ""
        let fits: Bool
        switch expectation {
        case .segment(let container):
            fits = container.accepts(prefix, complete: complete)
        case .kind(let kind):
            if let signature {
                fits = signature.kinds.contains(kind) && !(prefix.isEmpty && kind != .text)
            } else {
                // Bytes of a format not known here: the Content-Type decides, but never for
                // text, which is known by its bytes alone, nor for a body shorter than any
                // signature here is to be told (a truncated one), nor when it names a format
                // whose signature the bytes lack.
                fits = kind != .text && prefix.count >= Self.shortestMedia && type.hasPrefix(kind.rawValue + "/")
                    && !ContentSignature.knownTypes.contains(type)
            }
        case .mime(let wanted):
            if let signature, !signature.isPlainText {
                fits = signature.answers(to: wanted) && !prefix.isEmpty
            } else if signature != nil {
                // Text whose subtype only the header can tell (CSV, JSON, plain).
                fits = wanted.hasPrefix("text/") || wanted == type
            } else {
                fits = prefix.count >= Self.shortestMedia && wanted == type && !ContentSignature.knownTypes.contains(type)
            }
        }
        if fits { return nil }
        return "\(labelPrefix)expected \(expectation.phrase), got \(Self.got(type: type, signature: signature)) (\(Self.sample(prefix, complete: complete, announced: announced)))"
    }

    /// The refusal of a body of `size` bytes (announced, or complete) below `minSize`.
    package func refusal(size: Int64, announced: Bool) -> String? {
        guard minSize > 0, size < minSize else { return nil }
        return "\(labelPrefix)expected at least \(minSize) bytes, got \(size) bytes\(announced ? " (the size the server announced)" : "")"
    }

    private var labelPrefix: String { label.isEmpty ? "" : label + ": " }

    /// "text/html; charset=utf-8" -> "text/html".
    static func essence(_ contentType: String) -> String {
        String(contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .trimmingCharacters(in: .whitespaces).lowercased()
    }

    private static func got(type: String, signature: ContentSignature?) -> String {
        let header = type.isEmpty ? "no Content-Type" : String(type.prefix(100))
        guard let signature else { return type.isEmpty ? "bytes of no known format" : header + " with bytes of no known format" }
        return signature.answers(to: type) ? header : "\(header) whose bytes are \(signature.mime)"
    }

    /// "58 bytes starting '<!DOCTYPE html>'" or "at least 512 bytes starting with 00 00 01 ba".
    private static func sample(_ prefix: [UInt8], complete: Bool, announced: Int64?) -> String {
        let size = complete ? "\(prefix.count) bytes" : announced.map { "\($0) bytes" } ?? "more than \(prefix.count) bytes"
        if prefix.isEmpty { return "an empty body" }
        let line = prefix.prefix { $0 != 0x0A && $0 != 0x0D }.prefix(40)
        if !line.isEmpty, line.allSatisfy({ (0x20..<0x7F).contains($0) }) {
            return "\(size) starting '\(String(decoding: line, as: UTF8.self))'"
        }
        let hex = prefix.prefix(8).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        return "\(size) starting with bytes \(hex.joined(separator: " "))"
    }
}
