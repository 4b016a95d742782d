import PropertyBased
import Testing
@testable import TDLCore

/// The radix sort every long list is sorted by: the order a stable comparison sort gives the
/// same items, and numbers' bits ordered as the numbers are. A failure prints its seed.
@Suite struct RadixOrderPropertyTests {
    static func expectStableSortOrder(_ keys: [(UInt32, UInt64)]) {
        var items = keys.enumerated().map { RadixItem(minor: $1.1, major: $1.0, slot: UInt32($0)) }
        let expected = items.sorted { ($0.major, $0.minor, $0.slot) < ($1.major, $1.minor, $1.slot) }.map(\.slot)
        RadixOrder.sort(&items)
        #expect(items.map(\.slot) == expected)
    }

    @Test func itsOrderIsAStableComparisonSortsOrder() async {
        // Few values: long runs of equal keys, which must keep the order they came in.
        await propertyCheck(count: 300, input: zip(Gen.uint32(in: 0...3), Gen.uint64(in: 0...5)).array(of: 0...300)) {
            Self.expectStableSortOrder($0)
        }
        // Any values: every digit of both keys differs somewhere.
        await propertyCheck(count: 300, input: zip(Gen.uint32(), Gen.uint64()).array(of: 0...300)) {
            Self.expectStableSortOrder($0)
        }
    }

    @Test func numbersBitsOrderAsTheNumbers() async {
        await propertyCheck(count: 2000, input: zip(Gen.double(in: -1e15...1e15), Gen.double(in: -1e15...1e15))) { a, b in
            #expect((a < b) == (RadixOrder.orderedBits(a) < RadixOrder.orderedBits(b)))
            #expect((a == b) == (RadixOrder.orderedBits(a) == RadixOrder.orderedBits(b)))
        }
        let ladder: [Double] = [-.infinity, -1e300, -1, -Double.leastNonzeroMagnitude, 0, Double.leastNonzeroMagnitude, 1, 1e300, .infinity]
        #expect(ladder.map(RadixOrder.orderedBits) == ladder.map(RadixOrder.orderedBits).sorted())
        #expect(RadixOrder.orderedBits(-0.0) == RadixOrder.orderedBits(0))
    }
}
