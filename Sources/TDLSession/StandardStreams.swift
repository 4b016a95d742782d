// C's `stdout` is a global the C library owns (its FILE locks itself); imported first, as
// Foundation's import of Glibc would otherwise decide.
@preconcurrency import Glibc
import Foundation
import Synchronization

/// Standard output and error as tdl writes them: a write that fails (a closed pipe, a full
/// disk, `2>/dev/full`) ends that stream's output and never the work. Foundation's
/// `FileHandle.write(_:)` traps on such an error, and SIGPIPE (ignored from the start, see
/// `ignoreBrokenPipes`) used to end `tdl add -i BIG | head -1` after its first part.
public enum StandardStreams {
    /// Once a write to a stream fails, later ones are skipped. Atomics: any thread may write.
    private static let outputFailed = Atomic<Bool>(false)
    private static let errorFailed = Atomic<Bool>(false)

    public static var outputClosed: Bool { outputFailed.load(ordering: .relaxed) }
    public static var errorClosed: Bool { errorFailed.load(ordering: .relaxed) }

    /// A closed pipe is an error on the write (EPIPE) that stops the printing, never a signal
    /// that kills the process mid-add. Called first thing in main.
    public static func ignoreBrokenPipes() { signal(SIGPIPE, SIG_IGN) }

    /// Writes `text` to standard error, or nothing once it failed.
    public static func error(_ text: String) {
        guard !errorClosed else { return }
        var bytes = Array(text.utf8)
        if !write(&bytes, to: STDERR_FILENO) { errorFailed.store(true, ordering: .relaxed) }
    }

    /// Writes C's `stdout` buffer and `bytes` to standard output, or nothing once it failed.
    public static func output(_ bytes: [UInt8]) {
        guard !outputClosed else { return }
        let written = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, stdout) }
        if written < bytes.count || ferror(stdout) != 0 { outputFailed.store(true, ordering: .relaxed) }
    }

    /// Flushes C's `stdout`; a failure closes the stream for tdl.
    public static func flushOutput() {
        guard !outputClosed else { return }
        if fflush(stdout) != 0 { outputFailed.store(true, ordering: .relaxed) }
    }

    /// Every byte, retrying interrupted and partial writes; false on any other error.
    private static func write(_ bytes: inout [UInt8], to fd: Int32) -> Bool {
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + done, raw.count - done)
                if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { return false }
            }
            return true
        }
    }
}
