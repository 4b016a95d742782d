import Foundation

/// An error answer: aria2's code (1 for its own errors) and message.
public struct RPCFault: Error, Equatable {
    public let code: Int
    public let message: String

    public init(_ code: Int, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// A method's parameters, read by position.
struct Params {
    let values: [JSON]

    init(_ values: [JSON]) { self.values = values }

    func string(_ i: Int) -> String? { i < values.count ? values[i].string : nil }
    func array(_ i: Int) -> [JSON]? { i < values.count ? values[i].array : nil }
    func int(_ i: Int) -> Int? { i < values.count ? values[i].integer : nil }

    /// aria2's fault for parameter `i` (after the token): code 1, as every method's own error.
    func wrong(_ i: Int) -> RPCFault {
        RPCFault(1, i < values.count ? "The parameter at \(i) has wrong type." : "The parameter at \(i) is required but missing.")
    }
}
