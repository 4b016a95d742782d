import TDLCore
@testable import TDLTransfer
import XCTest

/// Retries and checkpoints as values, without a server.
final class RetryPolicyTests: XCTestCase {
    func testTheBackoffDoublesUpToThirtySeconds() {
        XCTAssertEqual((1...7).map { RetryPolicy.backoff(attempt: $0, base: 1) }, [1, 2, 4, 8, 16, 30, 30])
        XCTAssertEqual(RetryPolicy.backoff(attempt: 3, base: 0.05), 0.2, accuracy: 1e-9)
    }

    func testRetryAfterIsUsedForTheNextRetryOnly() {
        var policy = RetryPolicy(maxRetries: 5, baseSeconds: 1)
        policy.retryAfter = 7
        XCTAssertEqual(policy.delay(attempt: 1, jitter: 1), 7)
        XCTAssertEqual(policy.delay(attempt: 2, jitter: 1.2), 2.4, accuracy: 1e-9)
    }

    func testFailuresWithoutProgressRunOutAndProgressStartsTheCountOver() {
        var policy = RetryPolicy(maxRetries: 2, baseSeconds: 1)
        XCTAssertEqual(policy.countFailure(received: 0, stalled: false, size: nil), 1)
        XCTAssertEqual(policy.countFailure(received: 0, stalled: false, size: nil), 2)
        XCTAssertEqual(policy.countFailure(received: 10, stalled: false, size: nil), 1, "bytes since the last failure")
        XCTAssertEqual(policy.countFailure(received: 10, stalled: false, size: nil), 2)
        XCTAssertNil(policy.countFailure(received: 10, stalled: false, size: nil), "no retries left")
    }

    func testAStallIsForgivenOnlyAfterASixteenthOfTheFile() {
        var policy = RetryPolicy(maxRetries: 9, baseSeconds: 1)
        _ = policy.countFailure(received: 0, stalled: true, size: 1600)
        XCTAssertEqual(policy.countFailure(received: 99, stalled: true, size: 1600), 2)
        XCTAssertEqual(policy.countFailure(received: 199, stalled: true, size: 1600), 1)
    }

    func testRestartsAndChecksumFailuresHaveTheirOwnLimits() {
        var policy = RetryPolicy(maxRetries: 1, baseSeconds: 1)
        XCTAssertTrue(policy.countRestart())
        XCTAssertTrue(policy.countRestart())
        XCTAssertFalse(policy.countRestart(), "at most maxRetries + 1 restarts from zero")
        policy.forgetRestarts()
        XCTAssertTrue(policy.countRestart())
        XCTAssertTrue(policy.countChecksumFailure())
        XCTAssertFalse(policy.countChecksumFailure())
    }
}

final class CheckpointTrackerTests: XCTestCase {
    func testNothingNewTakesNoCheckpointButAFinalOneGoesAnyway() {
        var tracker = CheckpointTracker()
        XCTAssertNil(tracker.start(total: 0, final: false))
        XCTAssertNotNil(tracker.start(total: 0, final: true))
    }

    func testOneCheckpointIsInFlightAtATimeUnlessTheLast() throws {
        var tracker = CheckpointTracker()
        let ticket = try XCTUnwrap(tracker.start(total: 100, final: false))
        XCTAssertFalse(tracker.mayStart(final: false))
        XCTAssertTrue(tracker.mayStart(final: true))
        XCTAssertTrue(tracker.ended(ticket, synced: true))
        tracker.recorded(ticket)
        XCTAssertEqual(tracker.durableTotal, 100)
        XCTAssertTrue(tracker.mayStart(final: false))
        XCTAssertNil(tracker.start(total: 100, final: false), "the same bytes are durable already")
    }

    func testACheckpointTakenBeforeTheFileWasEmptiedIsNotRecorded() throws {
        var tracker = CheckpointTracker()
        let ticket = try XCTUnwrap(tracker.start(total: 500, final: false))
        tracker.fileEmptied()
        XCTAssertEqual(tracker.durableTotal, 0)
        XCTAssertFalse(tracker.ended(ticket, synced: true))
        XCTAssertTrue(tracker.mayStart(final: false), "it is no longer in flight")
    }

    func testAFailedSyncIsNotRecorded() throws {
        var tracker = CheckpointTracker()
        let ticket = try XCTUnwrap(tracker.start(total: 500, final: false))
        XCTAssertFalse(tracker.ended(ticket, synced: false))
        XCTAssertEqual(tracker.durableTotal, 0)
    }
}

/// curl's result codes (by their numbers in curl.h) as reasons; downloads to files and
/// streams use this one mapping.
final class CurlFailureTests: XCTestCase {
    func testNetworkFailuresAndTimeoutsAreRetried() {
        for number: UInt32 in [5, 6, 7, 16, 18, 52, 55, 56, 92] {
            let failure = CurlFailure(number: number)
            XCTAssertTrue(failure.isRetryable, "code \(number): \(failure.reason)")
            guard case .noNetwork = failure.reason else { return XCTFail("code \(number): \(failure.reason)") }
        }
        XCTAssertEqual(CurlFailure(number: 28).reason, .timeout)
        XCTAssertTrue(CurlFailure(number: 28).isRetryable)
    }

    func testTLSFailuresSayCurlsOwnWordsAndAreNotRetried() {
        for number: UInt32 in [35, 58, 60, 77] {
            let failure = CurlFailure(number: number, detail: "SSL certificate problem: self-signed certificate")
            XCTAssertEqual(failure.reason, .tls("SSL certificate problem: self-signed certificate"), "code \(number)")
            XCTAssertFalse(failure.isRetryable)
        }
        guard case .tls(let text) = CurlFailure(number: 60).reason else { return XCTFail("not a TLS failure") }
        XCTAssertFalse(text.isEmpty, "without a detail, the code's own text")
    }

    func testTheOtherCodesMapToTheirReasons() {
        XCTAssertEqual(CurlFailure(number: 47).reason, .tooManyRedirects)
        XCTAssertEqual(CurlFailure(number: 78).reason, .httpStatus(404))
        XCTAssertEqual(CurlFailure(number: 37).reason, .httpStatus(404))
        XCTAssertEqual(CurlFailure(number: 67).reason, .httpStatus(401))
        XCTAssertEqual(CurlFailure(number: 22, responseCode: 503).reason, .httpStatus(503))
        XCTAssertTrue(CurlFailure(number: 22, responseCode: 503).isRetryable)
        guard case .badURL = CurlFailure(number: 3).reason else { return XCTFail("a malformed URL") }
        guard case .badURL = CurlFailure(number: 1).reason else { return XCTFail("an unsupported protocol") }
        guard case .unknown = CurlFailure(number: 23).reason else { return XCTFail("a write error") }
    }
}
