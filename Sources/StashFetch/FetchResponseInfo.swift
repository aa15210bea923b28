/// What a successful (2xx) response said about the resource.
package struct FetchResponseInfo: Sendable, Equatable {
    package var httpStatus: Int
    /// Offset the response body was appended at; 0 when the file is written from the start.
    package var resumedFrom: Int64
    /// Full size of the resource, nil when the server did not say.
    package var totalBytes: Int64?
    package var etag: String?
    package var lastModified: String?
    /// Content-Type, lowercased, without parameters; "" when absent.
    package var contentType: String

    package init(httpStatus: Int, resumedFrom: Int64, totalBytes: Int64?, etag: String?, lastModified: String?, contentType: String = "") {
        self.contentType = contentType
        self.httpStatus = httpStatus
        self.resumedFrom = resumedFrom
        self.totalBytes = totalBytes
        self.etag = etag
        self.lastModified = lastModified
    }
}
