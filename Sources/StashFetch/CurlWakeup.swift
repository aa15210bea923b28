import CCurl

/// The one call other threads may make on a multi handle: libcurl documents
/// curl_multi_wakeup as safe from any thread. The fetch inbox drops it (`close`) before the
/// fetch thread cleans the handle up, so it never outlives the handle.
struct CurlWakeup: Sendable {
    nonisolated(unsafe) let handle: UnsafeMutableRawPointer

    func callAsFunction() throws {
        try CurlError.check(curl_multi_wakeup(handle), "curl_multi_wakeup")
    }
}
