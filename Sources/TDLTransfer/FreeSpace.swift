import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The free space of the download folders, asked of the file system once per folder in a loop
/// step rather than once per file: the first answers of a step are settled together (see
/// `CurlEngine.settleFirstAnswers`). What a file claims is taken off the folder's count for
/// the rest of the step, so the files of one step must fit together, not each on its own.
/// Loop thread only.
struct FreeSpace {
    /// Bytes still free per folder this step; nil when the file system would not say.
    private var left: [String: Int64?] = [:]

    /// A new loop step: every folder is asked again.
    mutating func forget() {
        if !left.isEmpty { left.removeAll(keepingCapacity: true) }
    }

    /// Whether `bytes` more fit in `directory`, taking them off its count if so. A folder whose
    /// file system does not answer has room (as before a first byte is written: the writes
    /// report a full disk themselves).
    mutating func claim(_ bytes: Int64, in directory: String) -> Bool {
        let known: Int64?
        if let cached = left[directory] { known = cached } else { known = Self.ask(directory) }
        guard let free = known else {
            left[directory] = .some(nil)
            return true
        }
        guard free >= bytes else {
            left[directory] = free
            return false
        }
        left[directory] = free - max(0, bytes)
        return true
    }

    static func ask(_ directory: String) -> Int64? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}
