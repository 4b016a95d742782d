import XCTest

/// A test class whose tests share one fault server, started once for the class. When it cannot
/// start (python3 missing, say), every test fails with that reason instead of crashing the run.
open class FaultServerTestCase: XCTestCase {
    private static var shared: FaultServer?
    private static var startError: Error?

    public var server: FaultServer { Self.shared! }

    override open class func setUp() {
        super.setUp()
        do { shared = try FaultServer() } catch { startError = error }
    }

    override open func setUpWithError() throws {
        try super.setUpWithError()
        if let error = Self.startError { throw error }
    }

    override open class func tearDown() {
        shared = nil
        startError = nil
        super.tearDown()
    }
}
