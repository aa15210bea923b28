import Foundation

/// What `LicenseServer` decided to answer a request with; its handler writes it.
struct LicenseServerAnswer {
    var status: Int
    var contentType: String
    var body: [UInt8]
    /// Seconds to wait before answering.
    var delay: Double = 0

    /// A JSON object body; keys are sorted so the same answer is the same bytes. The objects
    /// made here hold only strings, numbers and arrays of them, which always serialise.
    static func json(_ status: Int, _ object: [String: Any]) -> LicenseServerAnswer {
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return LicenseServerAnswer(status: status, contentType: "application/json", body: Array(data))
    }

    static func error(_ status: Int, _ message: String) -> LicenseServerAnswer {
        json(status, ["error": message])
    }
}
