/// How the rate limits are split among the running transfers. A download's own limit is
/// split evenly among its running transfers (a bundle's files, an HLS stream's segments),
/// which caps each; the global limit is then shared by water-filling: a transfer capped below
/// an even share keeps its cap, and what it leaves is shared by the others. So neither limit
/// is exceeded, and a slow download leaves its part of the global limit to the rest.
enum RateShares {
    /// Each transfer's bytes per second (0 = unlimited), from its own cap (0 = none) and the
    /// global limit (0 = unlimited); in the order of `caps`.
    static func split(global: Int64, caps: [Int64]) -> [Int64] {
        guard global > 0 else { return caps }
        var shares = caps
        let order = caps.indices.sorted { effective(caps[$0]) < effective(caps[$1]) }
        var left = global
        var remaining = Int64(caps.count)
        for index in order {
            let even = max(1, left / remaining)
            let share = min(effective(caps[index]), even)
            shares[index] = share
            left = max(0, left - share)
            remaining -= 1
        }
        return shares
    }

    /// The shares of transfers given as (group, the group's limit); "" is no group.
    static func split(global: Int64, groups: [(name: String, limit: Int64)]) -> [Int64] {
        var perGroup: [String: Int] = [:]
        for group in groups where !group.name.isEmpty { perGroup[group.name, default: 0] += 1 }
        let caps = groups.map { $0.name.isEmpty ? 0 : cap(limit: $0.limit, running: perGroup[$0.name] ?? 1) }
        return split(global: global, caps: caps)
    }

    /// A download's limit as a cap on each of its `running` transfers (0 = none).
    static func cap(limit: Int64, running: Int) -> Int64 {
        guard limit > 0 else { return 0 }
        return max(1, limit / Int64(max(1, running)))
    }

    private static func effective(_ cap: Int64) -> Int64 {
        cap > 0 ? cap : .max
    }
}
