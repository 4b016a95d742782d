import Foundation
import XCTest
@testable import TDLTerminal
#if canImport(Glibc)
import Glibc
#endif

/// A frame reaches the terminal in one write: drawn in pieces, each woke the terminal (tmux)
/// while the rest of the frame was still coming, 30–100 times a frame.
final class FrameWriteTests: XCTestCase {
    func testAFrameGoesOutInOneWrite() throws {
        // A packet socket keeps each write apart, where a pipe or a pty would join them.
        var pair: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair), 0)
        let terminal = pair[1]
        defer { close(terminal) }
        XCTAssertEqual(fcntl(terminal, F_SETFL, O_NONBLOCK), 0)
        let output = try XCTUnwrap(fdopen(pair[0], "w"))
        defer { fclose(output) }
        let curses = Curses(headless: (rows: 30, columns: 100), colors: true, output: output)
        defer { curses.end() }
        // The first frame carries what the set-up left; the second is one like every other.
        for frame in 0..<2 {
            curses.erase()
            for row in 0..<28 {
                curses.draw("\(frame == 0 ? "aaaa" : "zzzz") \(row)", row: row, column: 2, style: row == 3 + frame ? .selected : .normal)
                curses.draw("downloading · \(row + frame) MB", row: row, column: 40, style: .downloading)
            }
            if frame == 0 {
                curses.refresh()
                _ = writes(to: terminal)
            }
        }
        curses.refresh()
        let frame = writes(to: terminal)
        XCTAssertEqual(frame.count, 1, "the frame came in \(frame.count) writes: \(frame.map { $0.debugDescription })")
        XCTAssertEqual(frame.joined().components(separatedBy: "zzzz").count - 1, 28, "and it is the whole frame: \(frame)")
    }

    /// The writes that reached the terminal's end so far, one string each.
    private func writes(to fd: Int32) -> [String] {
        var messages: [String] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { return messages }
            messages.append(String(decoding: buffer[..<n], as: UTF8.self))
        }
    }
}
