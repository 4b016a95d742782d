import CCurl
import Foundation
import TDLCore
import TDLTestSupport
@testable import TDLTransfer
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A descriptor the loop waits on (the keyboard) that becomes ready while a turn's transfers
/// run at full speed ends that turn: the key is read at once, not after the turn's 30 ms
/// budget and the whole next turn.
final class TurnWatchTests: XCTestCase {
    func testADescriptorReadyDuringTheTransfersEndsTheTurnAndIsReported() throws {
        let site = TemporaryDirectory("tdl-site")
        // Sparse: nginx sends them at loopback speed, and making them costs nothing.
        for name in ["one.bin", "two.bin"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: site.file(name), contents: nil))
            XCTAssertEqual(truncate(site.file(name), 2 << 30), 0)
        }
        let nginx = try LoopbackNginx(root: site.path)
        let harness = EngineHarness(connections: 8)
        harness.manager.add([nginx.url("one.bin"), nginx.url("two.bin")], options: DownloadOptions())
        defer { harness.manager.shutdown() }
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        let key = fds[0], keyboard = fds[1]
        harness.run(for: 0.3)
        // The key comes 5 ms into a turn that does not wait before its transfers: only a look
        // during them can report it. A turn tells nothing, and is tried again, when its
        // transfers ran out of bytes before the key (nginx a step behind), when the key came
        // before the turn's poll, or when it came 15 ms late (the pressing thread held up by a
        // busy machine): too near the budget's end for a turn that ends at once to differ from
        // one that runs its whole budget.
        typealias Turn = (ready: Bool, pressed: ClosedRange<Double>, ms: Double)
        func telling(_ turn: Turn) -> Bool { turn.ready && turn.pressed.lowerBound >= 1 && turn.pressed.upperBound < 15 }
        var turns: [Turn] = []
        let deadline = Date().addingTimeInterval(20)
        while !(turns.last.map(telling) ?? false) && Date() < deadline {
            let pressed = Locked<ClosedRange<Date>?>(nil), done = DispatchSemaphore(value: 0)
            let press = Thread {
                usleep(5_000)
                let before = Date()
                _ = write(keyboard, "j", 1)
                pressed.set(before...Date())
                done.signal()
            }
            press.start()
            let t0 = Date()
            let ready = harness.manager.runOnce(timeoutMs: 0, watching: [.reading(key)])
            let ms = Date().timeIntervalSince(t0) * 1000
            // The key is read, as the screen would, before the next try.
            done.wait()
            var byte: UInt8 = 0
            while isReadable(key) { _ = read(key, &byte, 1) }
            let when = pressed.get()!, since = { (date: Date) in date.timeIntervalSince(t0) * 1000 }
            turns.append((ready.contains(key), since(when.lowerBound)...since(when.upperBound), ms))
            usleep(10_000)
        }
        let last = try XCTUnwrap(turns.last)
        XCTAssertTrue(telling(last), "a turn reports the descriptor that became ready during its transfers: \(turns.suffix(20))")
        XCTAssertLessThan(last.ms, 30, "and ends before its 30 ms budget would have: \(turns.suffix(20))")
        XCTAssertEqual(harness.manager.state(of: nginx.url("one.bin")), .downloading, "the downloads still ran")
    }

    /// The watch looks only at descriptors the turn's poll did not find ready, at most every
    /// two milliseconds, and says which became ready.
    func testTheWatchLooksAtWhatWasNotReadyEveryTwoMilliseconds() {
        var fds: [Int32] = [0, 0], other: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        XCTAssertEqual(pipe(&other), 0)
        defer { for fd in fds + other { close(fd) } }
        var alreadyReady = curl_waitfd(fd: other[0], events: Int16(CURL_WAIT_POLLIN), revents: 0)
        alreadyReady.revents = Int16(CURL_WAIT_POLLIN)
        _ = write(other[1], "x", 1)
        var watch = TurnWatch()
        _ = watch.begin([curl_waitfd(fd: fds[0], events: Int16(CURL_WAIT_POLLIN), revents: 0), alreadyReady], at: 100, budget: 0.03)
        XCTAssertFalse(watch.sawReady(at: 100.003), "nothing became ready; the one ready at the poll is served anyway")
        _ = write(fds[1], "j", 1)
        XCTAssertFalse(watch.sawReady(at: 100.004), "looked at most every 2 ms")
        XCTAssertTrue(watch.sawReady(at: 100.0051))
        XCTAssertEqual(watch.ready, [fds[0]])
        watch.end()
        XCTAssertFalse(watch.sawReady(at: 200), "nothing is watched between turns")
    }

    /// A descriptor the turn's poll found ready (a key pressed between turns) waits for the
    /// turn's transfers: they take bytes for 2 ms, not the 30 ms budget.
    func testADescriptorReadyAtThePollCutsTheTransfersShort() {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { for fd in fds { close(fd) } }
        let key = curl_waitfd(fd: fds[0], events: Int16(CURL_WAIT_POLLIN), revents: 0)
        var pressed = key
        pressed.revents = Int16(CURL_WAIT_POLLIN)
        var watch = TurnWatch()
        XCTAssertEqual(watch.begin([key], at: 100, budget: 0.03), 100.03, accuracy: 1e-9, "nothing ready: the whole budget")
        watch.end()
        XCTAssertEqual(watch.begin([pressed], at: 100, budget: 0.03), 100.002, accuracy: 1e-9, "a key waiting: 2 ms")
        watch.end()
        XCTAssertEqual(watch.begin([], at: 100, budget: 0.03), 100.03, accuracy: 1e-9, "nothing watched: the whole budget")
    }

    private func isReadable(_ fd: Int32) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, 0) > 0
    }
}
