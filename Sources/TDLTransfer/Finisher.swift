import CCurl
import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// Finishes completed part files in batches on the worker: checksums, one flush of the file
/// system for the whole batch (many small files cost one sync, not one each), the renames,
/// and one fsync per directory. The loop never waits for any of it.
final class Finisher {
    enum Result {
        case done(path: String, size: Int64)
        case checksumMismatch(expected: String, actual: String)
        case sizeMismatch(expected: Int64, actual: Int64)
        case failed(FailReason)
    }

    struct Item {
        let part: PartFile
        let expectedSize: Int64?
        let checksum: Checksum?
        let completion: (Result) -> Void
    }

    private unowned let engine: CurlEngine
    private var queued: [Item] = []
    private var running = false

    init(engine: CurlEngine) {
        self.engine = engine
    }

    /// Called on the loop; the completion comes back on the loop.
    func enqueue(part: PartFile, expectedSize: Int64?, checksum: Checksum?, completion: @escaping (Result) -> Void) {
        queued.append(Item(part: part, expectedSize: expectedSize, checksum: checksum, completion: completion))
        runIfIdle()
    }

    private func runIfIdle() {
        guard !running, !queued.isEmpty else { return }
        running = true
        let batch = queued
        queued.removeAll()
        engine.worker.async { [engine] in
            let results = Self.finish(batch)
            engine.post {
                for (item, result) in zip(batch, results) { item.completion(result) }
                self.running = false
                self.runIfIdle()
            }
        }
    }

    /// Worker thread.
    private static func finish(_ batch: [Item]) -> [Result] {
        var results: [Result?] = Array(repeating: nil, count: batch.count)
        for (k, item) in batch.enumerated() {
            let actual = item.part.size
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
        // One syncfs flushes every file of the batch (what `sync -f` does) and, since Linux 5.8,
        // reports a write error of any of them; when it fails each file is fsync'ed to find which.
        let batchSynced = ready.count > 1 && tdl_syncfs(batch[ready[0]].part.fd) == 0
        var directories = Set<String>()
        for k in ready {
            let item = batch[k]
            do {
                let path = try item.part.finish(syncingFile: !batchSynced, syncingDirectory: false)
                directories.insert(item.part.directory)
                results[k] = .done(path: path, size: item.part.size)
            } catch let error as FileError {
                results[k] = .failed(error.reason)
            } catch {
                results[k] = .failed(.unknown("\(error)"))
            }
        }
        // The renames become durable with one fsync per folder, before anyone is told.
        for directory in directories { PartFile.syncDirectory(directory) }
        return results.map { $0! }
    }
}
