import CCurl

/// The one call other threads may make on a multi handle: libcurl documents
/// curl_multi_wakeup as safe from any thread. It holds the multi handle's owner, so a wake-up
/// made after the fetch inbox let go of it (`FetchInbox.post` calls it outside its lock) still
/// finds the handle alive: the handle is cleaned up only once the last holder is gone.
struct CurlWakeup: Sendable {
    // Only `curl_multi_wakeup` is called through it, from any thread.
    nonisolated(unsafe) let multi: CurlMulti

    func callAsFunction() throws {
        try CurlError.check(curl_multi_wakeup(multi.handle), "curl_multi_wakeup")
    }
}
