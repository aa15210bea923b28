import Foundation

/// This process's open descriptors, each as its number and what it is ("7 pipe:[81234]",
/// "9 anon_inode:inotify"), so a number closed and used again for something else is told
/// apart. A test compares sets: other threads of the test process open and close
/// descriptors of their own meanwhile, so counts alone mislead.
package enum OpenDescriptors {
    package static func now() -> Set<String> {
        let numbers = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return Set(numbers.compactMap { number in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + number)).map { number + " " + $0 }
        })
    }
}
