import CCurl

/// Owns one easy handle with the memory libcurl keeps pointers to (error buffer, header list),
/// so both live exactly as long as the handle.
final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var headerList: UnsafeMutablePointer<curl_slist>?

    init() throws {
        guard let handle = curl_easy_init() else {
            throw CurlError(call: "curl_easy_init", message: "returned NULL (out of memory)")
        }
        self.handle = handle
        let size = ccurl_error_size()
        errorBuffer = .allocate(capacity: size)
        errorBuffer.initialize(repeating: 0, count: size)
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// Text libcurl left in CURLOPT_ERRORBUFFER for the last failure, "" when none.
    var errorText: String { String(cString: errorBuffer) }

    func set(_ option: CURLoption, _ value: Int) throws {
        try CurlError.check(ccurl_easy_setopt_long(handle, option, value), "curl_easy_setopt(\(option.rawValue), \(value))")
    }

    func set(_ option: CURLoption, _ value: String) throws {
        try CurlError.check(ccurl_easy_setopt_string(handle, option, value), "curl_easy_setopt(\(option.rawValue), string)")
    }

    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws {
        try CurlError.check(ccurl_easy_setopt_pointer(handle, option, value), "curl_easy_setopt(\(option.rawValue), pointer)")
    }

    func setWriteCallback(_ callback: ccurl_data_callback, userData: UnsafeMutableRawPointer) throws {
        try CurlError.check(ccurl_easy_setopt_write_callback(handle, callback), "curl_easy_setopt(WRITEFUNCTION)")
        try set(CURLOPT_WRITEDATA, pointer: userData)
    }

    func setHeaderCallback(_ callback: ccurl_data_callback, userData: UnsafeMutableRawPointer) throws {
        try CurlError.check(ccurl_easy_setopt_header_callback(handle, callback), "curl_easy_setopt(HEADERFUNCTION)")
        try set(CURLOPT_HEADERDATA, pointer: userData)
    }

    /// Replaces the request header list; lines are "Name: value".
    func setHeaders(_ lines: [String]) throws {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let extended = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw CurlError(call: "curl_slist_append", message: "returned NULL (out of memory)")
            }
            list = extended
        }
        try CurlError.check(ccurl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, list), "curl_easy_setopt(HTTPHEADER)")
        curl_slist_free_all(headerList)
        headerList = list
    }

    /// Resumes a transfer its write callback paused; libcurl may deliver held data right away.
    func unpause() throws {
        try CurlError.check(ccurl_easy_unpause(handle), "curl_easy_pause(CONT)")
    }

    func info(string info: CURLINFO) throws -> String? {
        var value: UnsafePointer<CChar>?
        try CurlError.check(ccurl_easy_getinfo_string(handle, info, &value), "curl_easy_getinfo(\(info.rawValue))")
        return value.map { String(cString: $0) }
    }

    func info(long info: CURLINFO) throws -> Int {
        var value = 0
        try CurlError.check(ccurl_easy_getinfo_long(handle, info, &value), "curl_easy_getinfo(\(info.rawValue))")
        return value
    }
}
