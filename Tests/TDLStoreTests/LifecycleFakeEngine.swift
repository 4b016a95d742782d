import Foundation
import TDLCore
import TDLStore
import XCTest
#if canImport(Glibc)
import Glibc
#endif

// MARK: - The fake engine

/// Downloads nothing from a network but writes real files the way FileDownload does: the name
/// is reported (and recorded by the manager) before the part file is created under it with
/// O_EXCL; bytes are written on `wait` turns and reported as durable; a complete file is
/// renamed into place one turn later without replacing anything.
final class FileWritingEngine: TransferEngine {
    final class Transfer {
        let job: TransferJob
        var fileName: String
        let size: Int64
        var written: Int64 = 0
        var fd: Int32 = -1
        var resolved = false
        var finishing = false
        init(job: TransferJob, size: Int64) {
            self.job = job
            fileName = job.fileName
            self.size = size
        }
        var segments: [Segment] {
            resolved ? [Segment(start: 0, end: size, done: written)] : [Segment(start: 0, end: nil, done: 0)]
        }
    }

    var onEvent: ((TransferEvent) -> Void)?
    var isNameTaken: ((_ url: String, _ path: String) -> Bool)?
    var isRecorded: ((_ url: String) -> Bool)?
    unowned let world: LifecycleWorld
    var transfers: [String: Transfer] = [:]
    var failNext: Set<String> = []
    /// URLs `start` was called for during the current step.
    var started: [String] = []

    init(world: LifecycleWorld) { self.world = world }

    static func partPath(_ directory: String, _ name: String) -> String { directory + "/" + name + ".part" }
    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    func isFinishing(_ url: String) -> Bool { transfers[url]?.finishing == true }

    func start(_ job: TransferJob) {
        guard transfers[job.url] == nil else { return }
        started.append(job.url)
        let t = Transfer(job: job, size: LifecycleWorld.size(of: job.url))
        transfers[job.url] = t
        let part = Self.partPath(job.directory, job.fileName)
        let durable = job.segments.reduce(0) { $0 + $1.done }
        if durable > 0 {
            // As FileDownload.begin: the database is trusted, clamped to what the file holds.
            let fd = open(part, O_RDWR | O_CLOEXEC)
            if fd >= 0 {
                var info = stat()
                fstat(fd, &info)
                t.fd = fd
                t.written = min(durable, Int64(info.st_size))
                t.resolved = true
            } else {
                onEvent?(.note(url: job.url, text: "the partial file was missing: starting from zero", retries: 0))
                onEvent?(.checkpoint(url: job.url, segments: []))
            }
        } else if job.partFileIsOurs {
            let fd = open(part, O_RDWR | O_CLOEXEC)
            if fd >= 0 {
                ftruncate(fd, 0)
                t.fd = fd
            }
        }
        if t.fd < 0, Self.exists(part), world.partCreator[part] == job.url {
            world.note(.rerunReusesOwnPart, "\(world.label(job.url)) starts without its own \(world.rel(part)) (segments \(job.segments.map(\.done)), partFileIsOurs \(job.partFileIsOurs))")
        }
        if t.resolved && t.written >= t.size { beginFinish(t) }
    }

    func stop(url: String) {
        guard let t = transfers[url], !t.finishing else { return }
        transfers[url] = nil
        if t.fd >= 0 {
            close(t.fd)
            onEvent?(.checkpoint(url: url, segments: t.segments))
        }
    }

    func liveProgress() -> [String: Int64] { transfers.mapValues(\.written) }
    func setGlobalRateLimit(_ bytesPerSecond: Int64?) {}
    func setRateLimit(url: String, _ bytesPerSecond: Int64?) {}
    let waker: @Sendable () -> Void = {}

    func wait(timeoutMs: Int, watching fds: [WatchedFD]) -> Set<Int32> {
        for url in transfers.keys.sorted() {
            guard let t = transfers[url] else { continue }
            if t.finishing {
                completeFinish(t)
            } else if failNext.remove(url) != nil {
                fail(t)
            } else if !t.resolved {
                resolve(t)
            } else {
                write(t)
            }
        }
        return []
    }

    func shutdown() {
        for url in transfers.keys.sorted() where transfers[url]?.finishing == false { stop(url: url) }
        for url in transfers.keys.sorted() { if let t = transfers[url] { completeFinish(t) } }
    }

    /// kill -9: nothing more is reported; the files stay as they are.
    func crash() {
        onEvent = nil
        for t in transfers.values where t.fd >= 0 { close(t.fd) }
        transfers = [:]
    }

    private func report(_ event: TransferEvent) { onEvent?(event) }

    private func resolved(_ t: Transfer) {
        report(.resolved(url: t.job.url, fileName: t.fileName, size: t.size, mimeType: nil, etag: "\"e\"",
                         lastModified: nil, finalURL: t.job.url))
    }

    private func resolve(_ t: Transfer) {
        let dir = t.job.directory
        if t.fd < 0 {
            // PartFile.create: the first name under which neither the file nor its part exists,
            // recorded before the part file is made.
            for n in 0..<1000 {
                let name = n == 0 ? t.job.fileName : FileNameSanitizer.numbered(t.job.fileName, n)
                let part = Self.partPath(dir, name)
                if Self.exists(dir + "/" + name) || Self.exists(part) || isNameTaken?(t.job.url, dir + "/" + name) == true { continue }
                t.fileName = name
                resolved(t)
                guard transfers[t.job.url] === t else { return }
                let fd = open(part, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                if fd >= 0 {
                    t.fd = fd
                    world.partCreator[part] = t.job.url
                    world.engineCreatedPart(t.job.url)
                    break
                }
            }
        } else {
            resolved(t)
        }
        t.resolved = true
    }

    private func write(_ t: Transfer) {
        let chunk = Int(min(2048, t.size - t.written))
        if chunk > 0 {
            let bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: t.size), count: chunk)
            _ = bytes.withUnsafeBytes { pwrite(t.fd, $0.baseAddress, chunk, off_t(t.written)) }
            t.written += Int64(chunk)
        }
        report(.checkpoint(url: t.job.url, segments: t.segments))
        if t.written >= t.size, transfers[t.job.url] === t { beginFinish(t) }
    }

    private func beginFinish(_ t: Transfer) {
        t.finishing = true
        report(.finishing(url: t.job.url, started: true))
    }

    private func fail(_ t: Transfer) {
        transfers[t.job.url] = nil
        if t.fd >= 0 { close(t.fd) }
        report(.failed(url: t.job.url, reason: .noNetwork("connection refused"), segments: t.segments))
    }

    /// Renames name.part to name, never replacing: a taken name gets the next free one,
    /// recorded first (Finisher's `.nameTaken`).
    private func completeFinish(_ t: Transfer) {
        let dir = t.job.directory
        while true {
            let part = Self.partPath(dir, t.fileName), target = dir + "/" + t.fileName
            if link(part, target) == 0 {
                unlink(part)
                world.partCreator[part] = nil
                break
            }
            guard errno == EEXIST else {
                t.finishing = false
                fail(t)
                return
            }
            var n = 1
            var name = FileNameSanitizer.numbered(t.fileName, n)
            while Self.exists(dir + "/" + name) || Self.exists(Self.partPath(dir, name)) || isNameTaken?(t.job.url, dir + "/" + name) == true {
                n += 1
                name = FileNameSanitizer.numbered(t.fileName, n)
            }
            t.fileName = name
            resolved(t)
            let newPart = Self.partPath(dir, name)
            guard link(part, newPart) == 0 else { t.finishing = false; fail(t); return }
            unlink(part)
            world.partCreator[newPart] = world.partCreator.removeValue(forKey: part)
        }
        close(t.fd)
        transfers[t.job.url] = nil
        report(.finished(url: t.job.url, path: dir + "/" + t.fileName, size: t.size))
    }
}
