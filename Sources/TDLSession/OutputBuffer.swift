import Foundation

/// Standard output in large writes: a million `print` calls, one per line of `tdl list`, cost
/// more than building the lines. Goes through C's `stdout`, as `print` does, so the two may
/// be mixed as long as the buffer is flushed between them.
public struct OutputBuffer {
    public var bytes: [UInt8] = []
    let limit: Int

    public init(limit: Int = 1 << 16) {
        self.limit = limit
        bytes.reserveCapacity(limit + 4096)
    }

    public mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// Writes out what is buffered once it holds `limit` bytes.
    public mutating func flushIfFull() { if bytes.count >= limit { flush() } }

    /// A closed standard output: the caller may stop making lines nobody reads.
    public var isClosed: Bool { StandardStreams.outputClosed }

    public mutating func flush() {
        guard !bytes.isEmpty else { return }
        StandardStreams.output(bytes)
        bytes.removeAll(keepingCapacity: true)
    }
}
