import Foundation

extension LicenseServerRequest {
    static let actions: Set<String> = ["acquire", "renew", "release"]
    static let fields: Set<String> = ["kids", "type", "action", "content_id", "certificate_sha256"]

    /// The request a body makes, and what is wrong with the body if anything: then the
    /// request has action "" and no kids. Strict, so a client that strays from the exchange
    /// (padded ids, a misspelt field) fails its test instead of passing by luck.
    static func parse(body: [UInt8], headers: [RecordedRequest.HTTPHeaderPair]) -> (request: LicenseServerRequest, problem: String?) {
        var request = LicenseServerRequest(action: "", kids: [], headers: headers, body: body)
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return (request, "the body is not a JSON object")
        }
        if let unknown = object.keys.sorted().first(where: { !fields.contains($0) }) {
            return (request, "unknown field \(unknown)")
        }
        guard let texts = object["kids"] as? [Any], !texts.isEmpty else {
            return (request, "kids must be a non-empty array")
        }
        var kids: [[UInt8]] = []
        for (index, text) in texts.enumerated() {
            // 16 bytes for a hex key id; 1 to 256 for an opaque skd:// id's text.
            guard let text = text as? String, let kid = Base64URL.decode(text), (1...256).contains(kid.count) else {
                return (request, "kids[\(index)] is not 1 to 256 bytes in unpadded base64url")
            }
            kids.append(kid)
        }
        guard object["type"] as? String == "persistent-license" else {
            return (request, "type must be persistent-license")
        }
        guard let action = object["action"] as? String, actions.contains(action) else {
            return (request, "action must be acquire, renew or release")
        }
        if object["content_id"] != nil && !(object["content_id"] is String) {
            return (request, "content_id must be a string")
        }
        if let digest = object["certificate_sha256"] {
            guard let text = digest as? String, text.count == 64, text.allSatisfy({ "0123456789abcdef".contains($0) }) else {
                return (request, "certificate_sha256 must be 64 lowercase hex digits")
            }
        }
        request.action = action
        request.kids = kids
        request.contentID = object["content_id"] as? String
        request.certificateSHA256 = object["certificate_sha256"] as? String
        return (request, nil)
    }
}
