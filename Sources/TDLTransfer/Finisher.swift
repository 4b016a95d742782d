import CCurl
import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// Finishes completed part files in batches on the worker: checksums, one flush of the file
/// system for the whole batch (many small files cost one sync, not one each), the renames,
/// and one fsync per directory. The loop never waits for any of it.
///
/// A batch starts when the one before is done and: no other download is still receiving (a
/// lone file finishes at once), or `batchSize` files wait, or the oldest has waited
/// `batchDelay`. Each batch costs a flush of the whole file system and a journal commit or
/// two, so for many small files fewer, larger batches were a quarter of the run's time; the
/// files waiting do not hold download slots (see `TransferEvent.finishing`).
final class Finisher {
    enum Result: Sendable {
        case done(path: String, size: Int64)
        case checksumMismatch(expected: String, actual: String)
        case sizeMismatch(expected: Int64, actual: Int64)
        case failed(FailReason)
        /// A file appeared under the recorded name: another must be recorded first.
        case nameTaken
    }

    /// What the worker gets of a file to finish.
    struct Item: Sendable {
        let part: PartFile
        let expectedSize: Int64?
        let checksum: Checksum?
    }

    static let batchSize = 64
    static let batchDelay = 0.025

    private unowned let engine: CurlEngine
    /// Files waiting for a batch, and what to do on the loop with each one's result.
    private var queued: [(item: Item, completion: (Result) -> Void)] = []
    private var oldestQueuedAt: Double = 0
    private var running = false
    /// Set when the engine shuts down: whatever waits goes at once.
    var hurry = false

    init(engine: CurlEngine) {
        self.engine = engine
    }

    /// No batch running and none waiting.
    var isIdle: Bool { !running && queued.isEmpty }

    /// Called on the loop; the completion comes back on the loop.
    func enqueue(part: PartFile, expectedSize: Int64?, checksum: Checksum?, completion: @escaping (Result) -> Void) {
        if queued.isEmpty {
            oldestQueuedAt = engine.now
            engine.scheduleTimer(at: oldestQueuedAt + Self.batchDelay)
        }
        queued.append((Item(part: part, expectedSize: expectedSize, checksum: checksum), completion))
        runIfDue()
    }

    /// Starts the next batch if one is due; the loop calls it every turn.
    func runIfDue() {
        guard !running, !queued.isEmpty else { return }
        let due = hurry || queued.count >= Self.batchSize || engine.now - oldestQueuedAt >= Self.batchDelay
            || engine.downloads.values.allSatisfy(\.finishing)
        guard due else { return }
        running = true
        let items = queued.map(\.item)
        let completions = queued.map(\.completion)
        queued.removeAll()
        engine.worker.run({ Self.finish(items) }) { results in
            for (completion, result) in zip(completions, results) { completion(result) }
            self.running = false
            self.runIfDue()
        }
    }

    /// Worker thread.
    private static func finish(_ batch: [Item]) -> [Result] {
        var results: [Result?] = Array(repeating: nil, count: batch.count)
        // One fstat per file: its size for the checks and the result, its device for the sync.
        var sizes = Array(repeating: Int64(0), count: batch.count)
        var devices = Array(repeating: UInt64.max, count: batch.count)
        for (k, item) in batch.enumerated() {
            if let failedWrite = item.part.failedWrite {
                results[k] = .failed(failedWrite.reason)
                continue
            }
            var info = stat()
            if fstat(item.part.fd, &info) == 0 {
                sizes[k] = Int64(info.st_size)
                devices[k] = UInt64(info.st_dev)
            }
            let actual = sizes[k]
            if let expected = item.expectedSize, actual != expected {
                results[k] = .sizeMismatch(expected: expected, actual: actual)
                continue
            }
            if let checksum = item.checksum {
                let digest = FileDigest.hex(of: item.part.fd, algorithm: checksum.algorithm) ?? ""
                if digest != checksum.hex {
                    results[k] = .checksumMismatch(expected: checksum.hex, actual: digest)
                }
            }
        }
        let ready = batch.indices.filter { results[$0] == nil }
        // One syncfs per file system flushes every file of the batch on it (what `sync -f`
        // does) and, since Linux 5.8, reports a write error of any of them. A failure fails
        // every file it covered: they stay part files, and a later run resumes them. A file
        // alone on its file system is fsync'ed itself.
        var byDevice: [UInt64: [Int]] = [:]
        for k in ready { byDevice[devices[k], default: []].append(k) }
        var synced = Set<Int>()
        for (device, members) in byDevice where device != .max && members.count > 1 {
            if tdl_syncfs(batch[members[0]].part.fd) == 0 {
                synced.formUnion(members)
            } else {
                let error = FileError.from(errno, batch[members[0]].part.directory)
                for k in members { results[k] = .failed(error.reason) }
            }
        }
        var renamedIn: [String: [Int]] = [:]
        for k in ready where results[k] == nil {
            let item = batch[k]
            do {
                let path = try item.part.finish(syncingFile: !synced.contains(k), syncingDirectory: false)
                renamedIn[item.part.directory, default: []].append(k)
                results[k] = .done(path: path, size: sizes[k])
            } catch FileError.nameTaken {
                results[k] = .nameTaken
            } catch let error as FileError {
                results[k] = .failed(error.reason)
            } catch {
                results[k] = .failed(.unknown("\(error)"))
            }
        }
        // The renames become durable with one fsync per folder, before anyone is told. When
        // that fails they may not be: the files go back to their part names and fail.
        for (directory, members) in renamedIn {
            do {
                try PartFile.syncDirectory(directory)
            } catch let error as FileError {
                for k in members {
                    batch[k].part.unfinish()
                    results[k] = .failed(error.reason)
                }
            } catch {}
        }
        return results.map { $0! }
    }
}
