import Dispatch

/// Memory that two threads initialize at once, each its own pieces of the indices. What a
/// million-row array holds is mostly references to strings scattered in memory: each element
/// waits for a cache miss to retain its string, and a second core halves the wait.
public struct ParallelFill<Element>: @unchecked Sendable {
    // Guarded by the split: each thread writes only the indices of its pieces, and the owner
    // reads nothing until `fill` returns (concurrentPerform waits for every piece).
    private let base: UnsafeMutablePointer<Element>

    /// Spans of at least this many elements are split over the threads.
    public static var parallelThreshold: Int { 20_000 }

    /// Elements read ahead of being made (see `FilterScan.blockSize`).
    static var blockSize: Int { 32 }

    public init(_ base: UnsafeMutablePointer<Element>) { self.base = base }

    /// Initializes the element at `index`, which no other thread writes.
    public func initialize(_ index: Int, to value: Element) { (base + index).initialize(to: value) }

    /// Initializes `count` elements from `offset` on with `element(k)` for k in 0..<count.
    /// `warm(k)` may read what `element(k)` will (plain loads, no retains), a block ahead, so
    /// that the misses of a block overlap.
    public func fill(from offset: Int, count: Int, warm: @Sendable (Int) -> UInt8 = { _ in 0 },
                     _ element: @Sendable (Int) -> Element) {
        let parts = count >= Self.parallelThreshold ? ParallelParts.pieceCount : 1
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let start = count * part / parts, end = count * (part + 1) / parts
            var block = start
            var warmed: UInt8 = 0
            while block < end {
                let blockEnd = min(end, block + Self.blockSize)
                for k in block ..< blockEnd { warmed &+= warm(k) }
                for k in block ..< blockEnd { (base + offset + k).initialize(to: element(k)) }
                block = blockEnd
            }
            Self.consume(warmed)
        }
    }

    /// A new array of `count` elements, `element(k)` each, made on two threads.
    public static func array(count: Int, warm: @Sendable (Int) -> UInt8 = { _ in 0 },
                             _ element: @Sendable (Int) -> Element) -> [Element] {
        [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 { ParallelFill(buffer.baseAddress!).fill(from: 0, count: count, warm: warm, element) }
            initialized = count
        }
    }

    /// Keeps the warming loads from being optimized away.
    @_optimize(none)
    static func consume(_ value: UInt8) {}
}
