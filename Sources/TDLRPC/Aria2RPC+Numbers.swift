import TDLCore

/// Numbers a caller sends, read with checked arithmetic: a value out of range is error 1.
extension Aria2RPC {
    /// A rate a caller sent, or aria2's error 1 with why it cannot be one.
    static func rate(_ text: String, for name: String) throws -> Int64 {
        do { return try RateText.parse(text) } catch { throw RPCFault(1, "\(name): \(error)") }
    }

    /// `a + b`, or the nearest Int where the sum is beyond one.
    static func clampedSum(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? Int.max : Int.min) : sum
    }
}
