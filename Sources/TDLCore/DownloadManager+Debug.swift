import Foundation

/// SDE's debug helper `reproduceDataToCount(_:)`, for `tdl debug populate N` and benchmarks.
extension DownloadManager {
    /// Grows or shrinks the list to `count` tasks. New tasks get random add times (last 60
    /// days), sizes (1 KB–4 GB, some unknown), names, types and settled states (finished,
    /// stopped, paused, failed: nothing starts downloading). The same seed gives the same data.
    /// Shrinking forgets the records at the end of the list but never touches files.
    public func reproduceData(count: Int, seed: UInt64 = 1) {
        let listed = list.sections.flatMap { $0 }
        let target = max(0, count)
        if listed.count > target {
            let doomed = Array(listed[target...])
            _ = list.remove(doomed)
            for url in doomed { eraseRecord(url) }
            emit(.listChanged)
            return
        }
        guard listed.count < target else { return }
        var random = SeededRandom(seed: seed)
        let now = clock()
        let folder = settings.downloadDirectory ?? defaultDirectory
        var newTasks: [DownloadTask] = []
        newTasks.reserveCapacity(target - listed.count)
        var serial = 0
        while listed.count + newTasks.count < target {
            serial += 1
            let fileName = DebugNames.make(&random)
            let url = "https://example.com/debug/\(seed)/\(serial)/" + DebugNames.percentEncoded(fileName)
            guard tasks[url] == nil else { continue }
            let addTime = now.addingTimeInterval(-Double(random.next() % (60 * 86_400_000)) / 1000)
            var task = DownloadTask(url: url, fileName: fileName, directory: folder, addTime: addTime, state: .stopped)
            if random.next() % 20 != 0 {
                // Log-uniform from 1 KB to 4 GB, so every size section gets tasks.
                let exponent = 10 + Double(random.next() % 22_000) / 1000
                task.size = Int64(pow(2, exponent))
            }
            let roll = random.next() % 100
            switch roll {
            case ..<40:
                task.state = .finished
                task.received = task.size ?? 0
            case ..<65:
                task.state = .stopped
            case ..<85:
                task.state = .paused
            default:
                task.state = .failed
                task.failReason = DebugNames.reasons[Int(random.next() % UInt64(DebugNames.reasons.count))]
            }
            if task.state != .finished, let size = task.size, size > 0 {
                task.received = Int64(random.next() % UInt64(size))
            }
            newTasks.append(task)
        }
        tasks.reserveCapacity(tasks.count + newTasks.count)
        for task in newTasks {
            tasks[task.url] = task
            trackState(task.url, task.state)
            markDirty(task.url)
        }
        // Arranged by hand, at the end of the list (the place is clamped into the last section).
        place(newTasks.map(\.url), atManualIndex: ListIndex(section: .max, row: .max))
        emit(.listChanged)
    }
}

/// SplitMix64: tiny, fast and the same on every platform (the system generator is not
/// seedable). Made-up sessions and the tests' random sequences replay from their seed.
public struct SeededRandom: RandomNumberGenerator {
    var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Plausible file names for generated tasks, covering every type and name index group.
enum DebugNames {
    static let words = ["alpha", "Backup", "camera", "Delta", "episode", "final", "Gamma", "holiday", "invoice",
                        "Jazz", "kernel", "lecture", "Movie", "notes", "Ocean", "podcast", "quarterly", "Report",
                        "song", "Trip", "ubuntu", "video", "Wallpaper", "xray", "Yosemite", "zeta",
                        "2024", "01", "_draft", "Éclair", "über", "東京", "Ωmega"]
    static let extensions = ["jpg", "png", "mp3", "flac", "mp4", "mkv", "pdf", "txt", "zip", "tar.gz", "iso", "bin", "dat"]
    static let reasons: [FailReason] = [.timeout, .noNetwork(""), .diskFull, .httpStatus(404), .httpStatus(503),
                                        .serverChangedFile, .checksumMismatch(expected: "00", actual: "ff"), .unknown("")]

    /// Unreserved bytes as they are, the rest as %XX (Foundation's encoder is slow at 100,000).
    static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            if (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2D || byte == 0x2E || byte == 0x5F {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func make<R: RandomNumberGenerator>(_ random: inout R) -> String {
        let first = words[Int(random.next() % UInt64(words.count))]
        let second = words[Int(random.next() % UInt64(words.count))]
        let ext = extensions[Int(random.next() % UInt64(extensions.count))]
        return "\(first) \(second) \(random.next() % 1000).\(ext)"
    }
}

