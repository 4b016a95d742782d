import CCurl
import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// The `.part` file beside the target, and the crash-safe way to finish it: data is written
/// at offsets, fdatasync'ed before its offsets are recorded, and at the end fsync'ed and
/// renamed into place without replacing anything. Shared by the loop (which creates and
/// renames it) and the worker (which writes, syncs and finishes it).
final class PartFile: Sendable {
    let directory: String
    /// Guarded by its lock: the loop renames the file while the worker may name it.
    private let name: Locked<String>
    let fd: Int32

    var fileName: String { name.withLock { $0 } }

    var partPath: String { Self.partPath(directory, fileName) }

    static func partPath(_ directory: String, _ name: String) -> String {
        (directory as NSString).appendingPathComponent(name) + ".part"
    }

    private init(directory: String, fileName: String, fd: Int32) {
        self.directory = directory
        name = Locked(fileName)
        self.fd = fd
    }

    deinit { Glibc.close(fd) }

    /// What is found under an earlier run's part-file name.
    enum Reopened {
        case opened(PartFile)
        case missing
        /// Something tdl did not make: a link, a folder, a device, another user's file. It is
        /// left untouched; the download starts again under a free name.
        case foreign(String)
    }

    /// Opens the part file of an earlier run, never through a symbolic link (in a folder
    /// others can write, a link planted at `NAME.part` would have tdl write into its target),
    /// and only when the descriptor is a regular file of this user's.
    static func reopen(directory: String, fileName: String) throws -> Reopened {
        let path = partPath(directory, fileName)
        let fd = Glibc.open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        if fd < 0 {
            switch errno {
            case ENOENT: return .missing
            case ELOOP: return .foreign("\(path) is a symbolic link")
            case EISDIR, ENXIO, EOPNOTSUPP: return .foreign("\(path) is not a regular file")
            default: throw FileError.from(errno, path)
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid() else {
            let why = info.st_mode & S_IFMT != S_IFREG ? "is not a regular file" : "belongs to another user"
            Glibc.close(fd)
            return .foreign("\(path) \(why)")
        }
        return .opened(PartFile(directory: directory, fileName: fileName, fd: fd))
    }

    /// The part file's path still names the file this descriptor has open: nothing was
    /// swapped in under it (a rename moves whatever the path names, a link included).
    func isStillAtItsPath() -> Bool {
        var mine = stat(), there = stat()
        return fstat(fd, &mine) == 0 && lstat(partPath, &there) == 0 && mine.st_dev == there.st_dev && mine.st_ino == there.st_ino
    }

    /// Creates a new part file under the first free name: neither `name` nor `name.part` may
    /// exist, so nothing of the user's is ever overwritten. O_EXCL makes the reservation atomic.
    /// `isTaken` says whether another task owns a target path; `willCreate` hears each name
    /// before the file is made under it (to record it first), and may refuse it by throwing.
    /// `chosenAhead`: a name `freeName` found free in this step of the loop, tried first
    /// without looking it up on disk again (O_EXCL still guards the part file, and the finish's
    /// no-replace rename the target); when it is taken by now, the names are looked up as usual.
    static func create(directory: String, preferredName: String, chosenAhead: String? = nil,
                       isTaken: @escaping (String) -> Bool, willCreate: (String) throws -> Void) throws -> PartFile {
        var madeFolder = false
        if let name = chosenAhead, !isTaken((directory as NSString).appendingPathComponent(name)) {
            try willCreate(name)
            if let made = try createPart(directory, name, madeFolder: &madeFolder) { return made }
        }
        for name in freeNames(directory: directory, preferredName: preferredName, from: 0, isTaken: isTaken) {
            try willCreate(name)
            if let made = try createPart(directory, name, madeFolder: &madeFolder) { return made }
        }
        throw FileError.other("no free file name for \(preferredName)")
    }

    /// Creates `name.part`; nil when it exists.
    private static func createPart(_ directory: String, _ name: String, madeFolder: inout Bool) throws -> PartFile? {
        while true {
            let fd = Glibc.open(partPath(directory, name), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if fd >= 0 { return PartFile(directory: directory, fileName: name, fd: fd) }
            let failure = errno
            if failure == EEXIST { return nil }
            // A download folder removed while tdl runs is made again when a download needs
            // it (once every later download failed in it until a restart). Asked of the
            // `open` that failed, not checked before each file: one call fewer per file.
            guard failure == ENOENT, !madeFolder else { throw FileError.from(failure, partPath(directory, name)) }
            madeFolder = true
            try makeFolder(directory)
        }
    }

    private static func makeFolder(_ directory: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw FileError.from(errno == 0 ? EACCES : errno, directory)
        }
    }

    var size: Int64 {
        var st = stat()
        return fstat(fd, &st) == 0 ? Int64(st.st_size) : 0
    }

    /// The first queued write that failed. From then on nothing more is written and every sync
    /// reports it, so no checkpoint and no finish counts bytes that never reached the file.
    /// Set and read on the worker, like the queued writes themselves; guarded by its lock.
    private let firstFailedWrite = Locked<FileError?>(nil)

    var failedWrite: FileError? { firstFailedWrite.withLock { $0 } }

    /// Worker: a write queued by the loop (see `FileDownload.writePending`).
    func writeQueued(_ bytes: [UInt8], at offset: Int64) -> FileError? {
        guard failedWrite == nil else { return nil }
        do {
            try bytes.withUnsafeBytes { try write($0.baseAddress!, count: $0.count, at: offset) }
            return nil
        } catch {
            let failure = error as? FileError ?? .other("\(error)")
            firstFailedWrite.withLock { $0 = failure }
            return failure
        }
    }

    /// Worker: empties the file, after the writes queued before; older failures no longer matter.
    func truncate() throws {
        firstFailedWrite.withLock { $0 = nil }
        if ftruncate(fd, 0) != 0 { throw FileError.from(errno, partPath) }
    }

    /// Writes all of `count` bytes at `offset`.
    func write(_ pointer: UnsafeRawPointer, count: Int, at offset: Int64) throws {
        var done = 0
        while done < count {
            let n = pwrite(fd, pointer + done, count - done, off_t(offset + Int64(done)))
            if n < 0 {
                if errno == EINTR { continue }
                throw FileError.from(errno, partPath)
            }
            done += n
        }
    }

    /// Starts writeback of what was written so far without waiting, so the final fsync is short.
    func startWriteback() {
        _ = tdl_start_writeback(fd)
    }

    func syncData() throws {
        if let failedWrite { throw failedWrite }
        if fdatasync(fd) != 0 { throw FileError.from(errno, partPath) }
    }

    /// Worker: `syncData` as a value to hand back to the loop; nil when the data is durable.
    func syncFailure() -> FileError? {
        do {
            try syncData()
            return nil
        } catch {
            return error as? FileError ?? .other("\(error)")
        }
    }

    /// fsync, then rename `name.part` to `name`, never replacing a file, then fsync the
    /// directory so the rename itself is durable. Returns the final path. Throws `.nameTaken`
    /// when a file appeared under the name meanwhile: the session recorded this name, so
    /// another must be recorded before the part file may become it (see `rename(to:)`).
    func finish(syncingFile: Bool = true, syncingDirectory: Bool = true) throws -> String {
        if syncingFile && fsync(fd) != 0 { throw FileError.from(errno, partPath) }
        guard isStillAtItsPath() else { throw FileError.other("\(partPath) was replaced by another file") }
        let target = (directory as NSString).appendingPathComponent(fileName)
        let failure = Self.move(partPath, to: target)
        if failure == EEXIST { throw FileError.nameTaken }
        if failure != 0 { throw FileError.from(failure, target) }
        if syncingDirectory { try Self.syncDirectory(directory) }
        return target
    }

    /// Takes back a finish whose rename could not be made durable: the file is a part file again.
    func unfinish() {
        _ = Self.move((directory as NSString).appendingPathComponent(fileName), to: partPath)
    }

    /// Moves the part file to `name.part` (a free name, already recorded).
    func rename(to name: String) throws {
        let newPath = Self.partPath(directory, name)
        guard isStillAtItsPath() else { throw FileError.other("\(partPath) was replaced by another file") }
        let failure = Self.move(partPath, to: newPath)
        if failure != 0 { throw failure == EEXIST ? FileError.nameTaken : FileError.from(failure, newPath) }
        self.name.withLock { $0 = name }
    }

    /// The first numbered name (`name (1)`, …) that is free: for a file that must give up its
    /// own. From 0, the name `create` would take now.
    static func freeName(directory: String, preferredName: String, from first: Int = 1,
                         isTaken: @escaping (String) -> Bool) -> String? {
        freeNames(directory: directory, preferredName: preferredName, from: first, isTaken: isTaken).first { _ in true }
    }

    /// The names to try for `preferredName` in order (`name`, `name (1)`, …), from the `first`-th,
    /// keeping those under which neither a file nor its part file exists and that no other task
    /// owns (`isTaken`, given the target path).
    private static func freeNames(directory: String, preferredName: String, from first: Int,
                                  isTaken: @escaping (String) -> Bool) -> some Sequence<String> {
        (first..<10_000).lazy
            .map { n in n == 0 ? preferredName : FileNameSanitizer.numbered(preferredName, n) }
            .filter { name in
                let target = (directory as NSString).appendingPathComponent(name)
                // lstat: a link, even one to nothing, takes its name.
                var info = stat()
                return lstat(target, &info) != 0 && lstat(partPath(directory, name), &info) != 0 && !isTaken(target)
            }
    }

    /// Renames `from` to `target` unless `target` exists (then EEXIST); 0 or an errno.
    static func move(_ from: String, to target: String) -> Int32 {
        if tdl_rename_noreplace(from, target) == 0 { return 0 }
        // File systems without the no-replace rename: link() fails with EEXIST instead of
        // replacing, and the name's second link is dropped after.
        guard errno == EINVAL || errno == ENOSYS else { return errno }
        if link(from, target) == 0 {
            unlink(from)
            return 0
        }
        // Nor hard links: check, then rename (a small race, no data loss of ours).
        guard errno == EPERM || errno == ENOTSUP || errno == EXDEV else { return errno }
        if access(target, F_OK) == 0 { return EEXIST }
        return Glibc.rename(from, target) == 0 ? 0 : errno
    }

    /// Makes the renames in `directory` durable; a failure means they may not be.
    static func syncDirectory(_ directory: String) throws {
        let dfd = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { throw FileError.from(errno, directory) }
        defer { Glibc.close(dfd) }
        if fsync(dfd) != 0 { throw FileError.from(errno, directory) }
    }
}

/// File-system failures, mapped to the reasons the user sees.
enum FileError: Error, Sendable {
    case diskFull
    /// A file appeared under the name the session recorded for this download.
    case nameTaken
    case other(String)

    static func from(_ code: Int32, _ path: String) -> FileError {
        if code == ENOSPC || code == EDQUOT { return .diskFull }
        return .other("\(path): \(String(cString: strerror(code)))")
    }

    var reason: FailReason {
        switch self {
        case .diskFull: return .diskFull
        case .nameTaken: return .fileSystem("another file took the name")
        case .other(let text): return .fileSystem(text)
        }
    }
}
