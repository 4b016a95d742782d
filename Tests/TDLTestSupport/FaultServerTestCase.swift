import XCTest
import TDLCore

/// A test class whose tests share one fault server, started once for the class. When it cannot
/// start (python3 missing, say), every test fails with that reason instead of crashing the run.
open class FaultServerTestCase: XCTestCase {
    /// The class's server, or why it could not start; each guarded by its lock.
    private static let shared = Locked<FaultServer?>(nil)
    private static let startError = Locked<(any Error)?>(nil)

    public var server: FaultServer { Self.shared.get()! }

    override open class func setUp() {
        super.setUp()
        do { shared.set(try FaultServer()) } catch { startError.set(error) }
    }

    override open func setUpWithError() throws {
        try super.setUpWithError()
        if let error = Self.startError.get() { throw error }
    }

    override open class func tearDown() {
        shared.set(nil)
        startError.set(nil)
        super.tearDown()
    }
}
