import CCurl

/// Owns the multi handle. Only the fetch thread drives it; `wakeup` is the one call libcurl
/// allows from other threads.
final class CurlMulti {
    let handle: UnsafeMutableRawPointer

    init() throws {
        guard let handle = curl_multi_init() else {
            throw CurlError(call: "curl_multi_init", message: "returned NULL (out of memory)")
        }
        self.handle = handle
    }

    deinit {
        curl_multi_cleanup(handle)
    }

    func set(_ option: CURLMoption, _ value: Int) throws {
        try CurlError.check(ccurl_multi_setopt_long(handle, option, value), "curl_multi_setopt(\(option.rawValue), \(value))")
    }

    func add(_ easy: CurlEasy) throws {
        try CurlError.check(curl_multi_add_handle(handle, easy.handle), "curl_multi_add_handle")
    }

    func remove(_ easy: CurlEasy) throws {
        try CurlError.check(curl_multi_remove_handle(handle, easy.handle), "curl_multi_remove_handle")
    }

    func perform() throws {
        var running: Int32 = 0
        try CurlError.check(curl_multi_perform(handle, &running), "curl_multi_perform")
    }

    /// Waits for socket activity, curl's own timers, `wakeup()` or `timeoutMs`, whichever first.
    func poll(timeoutMs: Int) throws {
        try CurlError.check(curl_multi_poll(handle, nil, 0, Int32(clamping: timeoutMs), nil), "curl_multi_poll")
    }

    /// What another thread uses to wake `poll`.
    var wakeup: CurlWakeup { CurlWakeup(multi: self) }

    /// Finished transfers since the last call, as (easy handle, result).
    func completions() -> [(UnsafeMutableRawPointer, CURLcode)] {
        var done: [(UnsafeMutableRawPointer, CURLcode)] = []
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(handle, &remaining) {
            if ccurl_msg_is_done(message) != 0, let easy = ccurl_msg_easy_handle(message) {
                done.append((easy, ccurl_msg_result(message)))
            }
        }
        return done
    }
}
