/// What to do with the body of a 2xx response, given the range that was asked for. A value
/// with a pure decision so every resume case is unit-testable without a server.
enum BodyPlan: Equatable {
    /// The body continues the part file at the requested offset.
    case append
    /// The body is the resource from byte 0: truncate the part file and write from zero.
    case writeFromZero
    /// The body cannot be trusted to continue what we hold: truncate, forget the validators
    /// and ask again from zero without a range. `why` goes into the retry's message.
    case refetchFromZero(why: String)
    /// A byte range was asked for and the server sent something else (a 200 with the whole
    /// resource): nothing to keep, and asking again will not change it.
    case rangeIgnored

    /// `knownTotal` is the resource's size as learned before (an earlier response, or the
    /// registry's record of it); a 206 that names another size is another resource.
    static func decide(
        status: Int, requestedFrom: Int64, contentRange: ContentRange?, contentLength: Int64? = nil,
        knownTotal: Int64? = nil, responseETag: String?, partETag: String?
    ) -> BodyPlan {
        guard status == 206 else { return .writeFromZero }
        // Appending needs the served range and the whole size: without them the bytes could
        // land at the wrong offset or stop short of the end and still look complete.
        guard let contentRange, let servedFrom = contentRange.first, let size = contentRange.size else {
            return .refetchFromZero(why: "HTTP 206 without a Content-Range naming the bytes sent and the resource's size")
        }
        if let contentLength, contentLength != contentRange.length {
            return .refetchFromZero(why: "HTTP 206 with Content-Length \(contentLength) for Content-Range bytes \(servedFrom)-\(contentRange.last ?? servedFrom)/\(size)")
        }
        if servedFrom == 0, requestedFrom == 0 { return .writeFromZero }
        guard requestedFrom > 0, servedFrom == requestedFrom else {
            return servedFrom == 0 ? .writeFromZero : .refetchFromZero(why: "server sent bytes from \(servedFrom) when \(requestedFrom) was asked")
        }
        if let responseETag, let partETag, responseETag != partETag {
            return .refetchFromZero(why: "the entity tag changed from \(partETag) to \(responseETag)")
        }
        if let knownTotal, knownTotal != size {
            return .refetchFromZero(why: "the resource is now \(size) bytes, where it was \(knownTotal)")
        }
        return .append
    }

    /// The same decision for a transfer of `range`: offsets inside the range are offsets in the
    /// resource shifted by `range.offset`. Differences of two non-negative offsets cannot overflow.
    static func decideRange(
        _ range: FetchRange, status: Int, requestedFrom: Int64, contentRange: ContentRange?, responseETag: String?, partETag: String?
    ) -> BodyPlan {
        guard status == 206, let servedFrom = contentRange?.first else { return .rangeIgnored }
        let sameEntity = responseETag == nil || partETag == nil || responseETag == partETag
        let servedInRange = servedFrom - range.offset
        if requestedFrom > 0, servedInRange == requestedFrom, sameEntity { return .append }
        if servedInRange == 0 { return .writeFromZero }
        return .refetchFromZero(why: "server sent bytes from \(servedFrom) when \(range.offset) + \(requestedFrom) was asked")
    }

    /// The `If-Range` value for resuming a part file with these validators; nil when it cannot
    /// be resumed safely. RFC 9110 forbids weak entity tags in If-Range, so a weak ETag falls
    /// back to Last-Modified.
    static func ifRange(etag: String?, lastModified: String?) -> String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }
}
