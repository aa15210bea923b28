/// What to do with the body of a 2xx response, given the range that was asked for. A value
/// with a pure decision so every resume case is unit-testable without a server.
enum BodyPlan: Equatable {
    /// The body continues the part file at the requested offset.
    case append
    /// The body is the resource from byte 0: truncate the part file and write from zero.
    case writeFromZero
    /// The body is a range that fits nothing we hold: truncate and ask again from zero.
    case refetchFromZero(servedFrom: Int64)
    /// A byte range was asked for and the server sent something else (a 200 with the whole
    /// resource): nothing to keep, and asking again will not change it.
    case rangeIgnored

    static func decide(
        status: Int, requestedFrom: Int64, contentRange: ContentRange?, responseETag: String?, partETag: String?
    ) -> BodyPlan {
        guard status == 206 else { return .writeFromZero }
        let servedFrom = contentRange?.first ?? 0
        let sameEntity = responseETag == nil || partETag == nil || responseETag == partETag
        if requestedFrom > 0, servedFrom == requestedFrom, sameEntity { return .append }
        return servedFrom == 0 ? .writeFromZero : .refetchFromZero(servedFrom: servedFrom)
    }

    /// The same decision for a transfer of `range`: offsets inside the range are offsets in the
    /// resource shifted by `range.offset`.
    static func decideRange(
        _ range: FetchRange, status: Int, requestedFrom: Int64, contentRange: ContentRange?, responseETag: String?, partETag: String?
    ) -> BodyPlan {
        guard status == 206, let servedFrom = contentRange?.first else { return .rangeIgnored }
        let sameEntity = responseETag == nil || partETag == nil || responseETag == partETag
        if requestedFrom > 0, servedFrom == range.offset + requestedFrom, sameEntity { return .append }
        return servedFrom == range.offset ? .writeFromZero : .refetchFromZero(servedFrom: servedFrom - range.offset)
    }

    /// The `If-Range` value for resuming a part file with these validators; nil when it cannot
    /// be resumed safely. RFC 9110 forbids weak entity tags in If-Range, so a weak ETag falls
    /// back to Last-Modified.
    static func ifRange(etag: String?, lastModified: String?) -> String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }
}
