import StashCore

/// The groups of `ListIndex`: each group path in use gets a number, the positions of its
/// downloads in list order and the totals of its states. A filter takes a group and the
/// groups under it (`a` takes `a/b`, not `a-2`): in byte order those are `a` and then one run
/// of names starting `a/`, found by binary search among the names kept sorted.
///
/// Only the groups downloads name are kept, not every prefix of them: a group path may have
/// hundreds of segments, and a download must cost the same whatever its depth.
struct GroupDirectory {
    struct Group {
        var name: String
        /// Positions of its downloads, ascending; those of removed downloads stay until there
        /// are as many of them as live ones (`ListIndex` checks each position it reads).
        var members: [Int32] = []
        var removedMembers = 0
        var live = 0
        var tally = StateTally()
    }

    /// By number; number 0 is "no group", whose members are not kept (no filter takes them
    /// alone: the empty filter is every download).
    private(set) var groups = [Group(name: "")]
    private var numbers: [String: Int32] = ["": 0]
    /// Numbers of groups that emptied, to be given again.
    private var free: [Int32] = []
    /// Names in byte order, and those added since it was sorted; names of groups that emptied
    /// stay until the next merge, which drops them.
    private var sorted: [String] = []
    private var unsorted: [String] = []
    private var emptied = 0

    /// The number of the group `name`, which gets one if it has none.
    mutating func number(for name: String) -> Int32 {
        if let number = numbers[name] { return number }
        let number: Int32
        if let reused = free.popLast() {
            number = reused
            groups[Int(number)] = Group(name: name)
        } else {
            number = Int32(groups.count)
            groups.append(Group(name: name))
        }
        numbers[name] = number
        unsorted.append(name)
        return number
    }

    func name(of number: Int32) -> String {
        groups[Int(number)].name
    }

    /// A download entered the group at `position` (the end of the list order).
    mutating func enter(_ row: ListIndex.Row, at position: Int) {
        let number = Int(row.group)
        if number != 0 { groups[number].members.append(Int32(position)) }
        groups[number].live += 1
        groups[number].tally.add(row)
    }

    /// A download's counted share changed within its group.
    mutating func change(from old: ListIndex.Row, to new: ListIndex.Row) {
        groups[Int(new.group)].tally.subtract(old)
        groups[Int(new.group)].tally.add(new)
    }

    /// A download left its group. True when the group's list is now mostly positions of
    /// removed downloads: then `closeUp` should drop them.
    mutating func leave(_ row: ListIndex.Row) -> Bool {
        let number = Int(row.group)
        groups[number].tally.subtract(row)
        groups[number].live -= 1
        guard number != 0 else { return false }
        if groups[number].live == 0 {
            numbers[groups[number].name] = nil
            groups[number] = Group(name: "")
            free.append(Int32(number))
            emptied += 1
            return false
        }
        groups[number].removedMembers += 1
        return groups[number].removedMembers > groups[number].live
    }

    /// Keeps of the group's list the positions `isLive` says still hold a download.
    mutating func closeUp(_ number: Int32, isLive: (Int32) -> Bool) {
        groups[Int(number)].members.removeAll { !isLive($0) }
        groups[Int(number)].removedMembers = 0
    }

    /// After `ListIndex.compact`: every group's list from the new positions, in order.
    mutating func renumberMembers(_ groupAt: [Int32]) {
        for number in groups.indices {
            groups[number].members.removeAll(keepingCapacity: true)
            groups[number].removedMembers = 0
        }
        for (position, number) in groupAt.enumerated() where number != 0 {
            groups[Int(number)].members.append(Int32(position))
        }
    }

    /// The numbers of `prefix` and of the groups under it that hold downloads.
    mutating func matching(_ prefix: String) -> [Int32] {
        sortNames()
        var found: [Int32] = []
        if let number = numbers[prefix] { found.append(number) }
        // Names under `prefix` run from `prefix/` up to, not including, `prefix0` ('0' follows '/').
        let low = prefix + "/"
        let high = prefix + "0"
        var index = lowerBound(low)
        while index < sorted.count, sorted[index] < high {
            if let number = numbers[sorted[index]] { found.append(number) }
            index += 1
        }
        return found
    }

    private func lowerBound(_ name: String) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < name { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Merges the names added since the last query into the sorted ones, dropping those of
    /// groups that emptied: a query after a change of groups costs one pass over the names,
    /// not a sort of all of them.
    private mutating func sortNames() {
        guard !unsorted.isEmpty || emptied > 0 else { return }
        // A group that emptied and came back meanwhile was added twice.
        let added = Set(unsorted.filter { numbers[$0] != nil }).sorted()
        var merged: [String] = []
        merged.reserveCapacity(sorted.count + added.count)
        var next = added.startIndex
        for name in sorted where numbers[name] != nil {
            while next < added.endIndex, added[next] < name {
                merged.append(added[next])
                next += 1
            }
            // A group that emptied and came back is in both lists.
            if next < added.endIndex, added[next] == name { next += 1 }
            merged.append(name)
        }
        merged += added[next...]
        sorted = merged
        unsorted = []
        emptied = 0
    }
}
