/// What a radix sort orders by: `major`, then `minor`.
protocol RadixKeyed {
    var major: UInt32 { get }
    var minor: UInt64 { get }
}

extension RadixKeyed {
    func hasSameKeys(as other: Self) -> Bool { major == other.major && minor == other.minor }
}

/// An item of a radix sort: its place before the sort and the two keys it is ordered by.
struct RadixItem: RadixKeyed {
    var minor: UInt64
    var major: UInt32
    var slot: UInt32
}

/// Puts items in ascending order of (major, minor) with a stable least-significant-digit radix
/// sort: 11 bits a pass, a pass skipped when every item has the same digit there (add times
/// share their top bits, ranks are small). A million tasks take a few passes over 16- or
/// 32-byte items, where a comparison sort calls its comparator some 20 million times.
enum RadixOrder {
    static let digitBits = 11
    private static let bucketCount = 1 << digitBits

    static func sort<Item: RadixKeyed & BitwiseCopyable>(_ items: inout [Item]) {
        let count = items.count
        guard count > 1 else { return }
        // The digits the keys use, least significant first: minor's, then major's.
        var widestMinor: UInt64 = 0, widestMajor: UInt32 = 0
        for item in items {
            widestMinor |= item.minor
            widestMajor |= item.major
        }
        let minorBits = 64 - widestMinor.leadingZeroBitCount, majorBits = 32 - widestMajor.leadingZeroBitCount
        let digits = stride(from: 0, to: minorBits, by: digitBits).map { (isMajor: false, shift: $0) }
            + stride(from: 0, to: majorBits, by: digitBits).map { (isMajor: true, shift: $0) }
        guard !digits.isEmpty else { return }
        @inline(__always) func digit(_ item: Item, _ d: (isMajor: Bool, shift: Int)) -> Int {
            d.isMajor ? Int(truncatingIfNeeded: item.major >> UInt32(d.shift)) & (bucketCount - 1)
                : Int(truncatingIfNeeded: item.minor >> UInt64(d.shift)) & (bucketCount - 1)
        }
        // Every digit's counts in one pass: they do not depend on the order.
        var counts = [Int](repeating: 0, count: bucketCount * digits.count)
        counts.withUnsafeMutableBufferPointer { counts in
            items.withUnsafeBufferPointer { items in
                for item in items {
                    for (d, place) in digits.enumerated() { counts[d * bucketCount + digit(item, place)] += 1 }
                }
            }
        }
        // Every item lands in it once a pass, so nothing is read before it is written: not
        // zeroed first (fresh pages cost most of a pass).
        var other = [Item](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
        for (d, place) in digits.enumerated() {
            let base = d * bucketCount
            guard !counts[base ..< base + bucketCount].contains(count) else { continue }
            var offsets = [Int](repeating: 0, count: bucketCount)
            var sum = 0
            for b in 0 ..< bucketCount {
                offsets[b] = sum
                sum += counts[base + b]
            }
            offsets.withUnsafeMutableBufferPointer { offsets in
                items.withUnsafeBufferPointer { source in
                    other.withUnsafeMutableBufferPointer { target in
                        for item in source {
                            let b = digit(item, place)
                            target[offsets[b]] = item
                            offsets[b] += 1
                        }
                    }
                }
            }
            swap(&items, &other)
        }
    }

    /// The runs of two or more neighbours in `range` that `same` holds equal: what a sort on
    /// fewer keys left in no order among themselves.
    static func ties(in range: Range<Int>, _ same: (Int, Int) -> Bool) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start = range.lowerBound
        while start < range.upperBound {
            var end = start + 1
            while end < range.upperBound && same(start, end) { end += 1 }
            if end - start > 1 { runs.append(start ..< end) }
            start = end
        }
        return runs
    }

    /// A number's bits ordered as the numbers are: negatives flipped whole, positives with their
    /// sign bit set. −0 is 0, as the numbers compare equal.
    static func orderedBits(_ number: Double) -> UInt64 {
        let bits = (number == 0 ? 0 : number).bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }
}
