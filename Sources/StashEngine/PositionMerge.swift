/// Positions from several ascending lists (the groups a filter takes), merged in ascending
/// order from a start, through a heap of each list's next position: a page of a filter over
/// k groups costs log k a position, not a pass over every group's list.
struct PositionMerge {
    private let lists: [[Int32]]
    /// (next position, list, index of that position in its list), least position on top.
    private var heap: [(position: Int32, list: Int, index: Int)] = []

    init(_ lists: [[Int32]], from start: Int32) {
        self.lists = lists
        for (list, positions) in lists.enumerated() {
            let index = Self.lowerBound(positions, start)
            if index < positions.count { push((positions[index], list, index)) }
        }
    }

    mutating func next() -> Int32? {
        guard let top = heap.first else { return nil }
        let following = top.index + 1
        if following < lists[top.list].count {
            heap[0] = (lists[top.list][following], top.list, following)
        } else {
            heap[0] = heap[heap.count - 1]
            heap.removeLast()
        }
        siftDown(0)
        return top.position
    }

    private mutating func push(_ element: (position: Int32, list: Int, index: Int)) {
        heap.append(element)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].position < heap[parent].position else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            var least = parent
            let left = 2 * parent + 1
            if left < heap.count, heap[left].position < heap[least].position { least = left }
            if left + 1 < heap.count, heap[left + 1].position < heap[least].position { least = left + 1 }
            guard least != parent else { return }
            heap.swapAt(parent, least)
            parent = least
        }
    }

    private static func lowerBound(_ positions: [Int32], _ start: Int32) -> Int {
        var low = 0
        var high = positions.count
        while low < high {
            let middle = (low + high) / 2
            if positions[middle] < start { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
