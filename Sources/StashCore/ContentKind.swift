/// The broad kinds of content `--expect` names; a format (`ContentSignature`) may be of more
/// than one (an MP4 or a WebM file holds video, audio, or both).
package enum ContentKind: String, CaseIterable, Hashable, Sendable {
    case image, video, audio, text

    /// The kind with its article, as a message says it: "expected an image".
    var phrase: String {
        switch self {
        case .image: return "an image"
        case .video: return "a video"
        case .audio: return "audio"
        case .text: return "text"
        }
    }
}
