import Foundation
import XCTest
import TDLCore
import TDLTestSupport
@testable import TDLRPC

/// The loop-bound wrapper opens on the thread that made it only.
final class LoopBoundTests: XCTestCase {
    func testOnlyTheThreadThatMadeItMayOpenIt() {
        let bound = LoopBound([1, 2, 3])
        XCTAssertTrue(bound.isOnLoop)
        XCTAssertEqual(bound.value, [1, 2, 3])
        let elsewhere = Locked<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            elsewhere.set(bound.isOnLoop)
            done.signal()
        }
        done.wait()
        XCTAssertEqual(elsewhere.get(), false)
    }
}
