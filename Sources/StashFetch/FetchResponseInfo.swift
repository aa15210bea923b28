/// What a successful (2xx) response said about the resource.
public struct FetchResponseInfo: Sendable, Equatable {
    public var httpStatus: Int
    /// Offset the response body was appended at; 0 when the file is written from the start.
    public var resumedFrom: Int64
    /// Full size of the resource, nil when the server did not say.
    public var totalBytes: Int64?
    public var etag: String?
    public var lastModified: String?
    /// Content-Type, lowercased, without parameters; "" when absent.
    public var contentType: String

    public init(httpStatus: Int, resumedFrom: Int64, totalBytes: Int64?, etag: String?, lastModified: String?, contentType: String = "") {
        self.contentType = contentType
        self.httpStatus = httpStatus
        self.resumedFrom = resumedFrom
        self.totalBytes = totalBytes
        self.etag = etag
        self.lastModified = lastModified
    }
}
