import Foundation
import StashClient

// Control-plane benchmark for `make bench`: GetDownload latency from one client and request
// throughput from many connections. Output lines are `name value` so bench/run.sh can read
// them without parsing prose.

struct Options {
    var socket = StashPaths.defaultSocketPath()
    var id = "bench-probe"
    var uri = "http://127.0.0.1:9/bench-probe"
    var warmup = 2_000
    var calls = 20_000
    var clients = 16
    var depth = 8
    var seconds = 3.0
    /// Calls run on the connection's event loop thread (`StashClient.taskExecutor`), as a
    /// latency-sensitive app would; false measures tasks on the default cooperative pool.
    var onEventLoop = true

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let next = rest.popFirst() else { throw StashError.invalidArgument("\(flag) needs a value") }
            return next
        }
        func integer(_ flag: String, _ range: ClosedRange<Int>) throws -> Int {
            let text = try value(flag)
            guard let number = Int(text), range.contains(number) else {
                throw StashError.invalidArgument("\(flag) '\(text)' is not an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return number
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--socket": options.socket = try value(flag)
            case "--id": options.id = try value(flag)
            case "--uri": options.uri = try value(flag)
            case "--warmup": options.warmup = try integer(flag, 0...10_000_000)
            case "--calls": options.calls = try integer(flag, 1...10_000_000)
            case "--clients": options.clients = try integer(flag, 1...1024)
            case "--depth": options.depth = try integer(flag, 1...1024)
            case "--seconds": options.seconds = Double(try integer(flag, 1...600))
            case "--pool": options.onEventLoop = false
            case "--help", "-h":
                print("""
                    usage: stash-bench [--socket PATH] [--id ID] [--uri URI] [--warmup N] [--calls N]
                                       [--clients N] [--depth N] [--seconds N] [--pool]
                    Measures GetDownload latency (sequential calls on one connection) and throughput
                    (--clients connections, each with --depth calls in flight, for --seconds).
                    The download --id is added with --uri when it does not exist.
                    Calls run on each connection's event loop thread unless --pool is given, which
                    runs them on the default cooperative thread pool.
                    """)
                exit(0)
            default:
                throw StashError.invalidArgument("unknown argument '\(flag)'; see --help")
            }
        }
        return options
    }
}

/// Nanoseconds on a monotonic clock.
func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func percentile(_ sorted: [UInt64], _ fraction: Double) -> Double {
    let index = min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.down)))
    return Double(sorted[index]) / 1000
}

func ensureDownload(_ client: StashClient, _ options: Options) async throws {
    do {
        _ = try await client.getDownload(id: options.id)
    } catch let error as StashError where error.code == .notFound {
        _ = try await client.addDownload(AddDownloadRequest(id: options.id, uri: options.uri))
    }
}

/// Runs `body` on the client's event loop thread, or where it is when `onEventLoop` is false.
func onClientThread<T: Sendable>(
    _ client: StashClient, _ onEventLoop: Bool, _ body: @Sendable () async throws -> T
) async throws -> T {
    guard onEventLoop, #available(macOS 15.0, *) else { return try await body() }
    return try await withTaskExecutorPreference(client.taskExecutor, operation: body)
}

func measureLatency(_ options: Options) async throws -> (p50: Double, p99: Double) {
    let client = try await StashClient.connect(socketPath: options.socket, clientName: "stash-bench")
    try await ensureDownload(client, options)
    var samples = try await onClientThread(client, options.onEventLoop) {
        for _ in 0..<options.warmup {
            _ = try await client.getDownload(id: options.id)
        }
        var samples = [UInt64](repeating: 0, count: options.calls)
        for index in 0..<options.calls {
            let start = now()
            _ = try await client.getDownload(id: options.id)
            samples[index] = now() - start
        }
        return samples
    }
    await client.close()
    samples.sort()
    return (percentile(samples, 0.50), percentile(samples, 0.99))
}

func measureThroughput(_ options: Options) async throws -> (requests: Int, seconds: Double) {
    var clients: [StashClient] = []
    for _ in 0..<options.clients {
        clients.append(try await StashClient.connect(socketPath: options.socket, clientName: "stash-bench"))
    }
    let id = options.id
    let onEventLoop = options.onEventLoop
    let start = now()
    let deadline = start + UInt64(options.seconds * 1e9)
    let requests = try await withThrowingTaskGroup(of: Int.self) { group in
        for client in clients {
            for _ in 0..<options.depth {
                group.addTask {
                    try await onClientThread(client, onEventLoop) {
                        var count = 0
                        while now() < deadline {
                            _ = try await client.getDownload(id: id)
                            count += 1
                        }
                        return count
                    }
                }
            }
        }
        return try await group.reduce(0, +)
    }
    let elapsed = Double(now() - start) / 1e9
    for client in clients { await client.close() }
    return (requests, elapsed)
}

do {
    let options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
    let latency = try await measureLatency(options)
    print(String(format: "getdownload_p50_us %.1f", latency.p50))
    print(String(format: "getdownload_p99_us %.1f", latency.p99))
    let throughput = try await measureThroughput(options)
    print(String(format: "getdownload_rps %.0f", Double(throughput.requests) / throughput.seconds))
    print("getdownload_clients \(options.clients)")
    print("getdownload_in_flight_per_client \(options.depth)")
} catch {
    FileHandle.standardError.write(Data("stash-bench: \(error)\n".utf8))
    exit(1)
}
