import Foundation
import TDLCore
import TDLSession

/// Progress of `tdl get` on stderr: live lines on a terminal, a line every few seconds
/// otherwise, nothing with -q.
final class ProgressPrinter {
    let manager: DownloadManager
    let urls: [String]
    let quiet: Bool
    let isTerminal = isatty(2) == 1
    var lastPrint: Double = 0
    var linesOnScreen = 0
    var reported: Set<String> = []

    init(manager: DownloadManager, urls: [String], quiet: Bool) {
        self.manager = manager
        self.urls = urls
        self.quiet = quiet
    }

    private var now: Double { Date().timeIntervalSinceReferenceDate }

    /// `ended`: requested URLs that finished or failed since the last call.
    func update(ended: [String]) {
        guard !quiet else { return }
        reportEnded(ended)
        let interval = isTerminal ? 0.25 : 5
        guard now - lastPrint >= interval else { return }
        lastPrint = now
        let active = urls.filter { manager.state(of: $0) == .downloading }
        let lines = active.prefix(10).map(line)
        if isTerminal {
            var output = linesOnScreen > 0 ? "\u{1B}[\(linesOnScreen)A" : ""
            for text in lines { output += "\r\u{1B}[2K" + text + "\n" }
            if lines.count < linesOnScreen {
                for _ in lines.count..<linesOnScreen { output += "\r\u{1B}[2K\n" }
                output += "\u{1B}[\(linesOnScreen - lines.count)A"
            }
            linesOnScreen = lines.count
            write(output)
        } else {
            for text in lines { write(text + "\n") }
        }
    }

    func line(_ url: String) -> String {
        let name = ScreenSafe.clean(manager.displayName(of: url) ?? URLCheck.withoutPassword(url))
        let activity = manager.activity[url]
        let received = activity?.received ?? manager.task(url)?.received ?? 0
        let size = manager.task(url)?.size
        let percent = size.map { $0 > 0 ? " \(Int(Double(received) * 100 / Double($0)))%" : "" } ?? ""
        let total = size.map { "/" + ByteFormat.string($0) } ?? ""
        return "\(name): \(ByteFormat.string(received))\(total)\(percent) \(ByteFormat.rate(activity?.speed ?? 0)) ETA \(ByteFormat.duration(activity?.eta))"
    }

    /// One line per file that finished or failed (kept above the live lines).
    func reportEnded(_ candidates: [String]) {
        for url in candidates where !reported.contains(url) {
            guard let task = manager.task(url), task.state == .finished || task.state == .failed else { continue }
            reported.insert(url)
            let text = task.state == .finished
                ? "done: \(ScreenSafe.clean(task.filePath)) (\(ByteFormat.string(task.size ?? task.received)))"
                : "failed: \(ScreenSafe.url(url)): \(task.failReason?.message ?? "unknown error")"
            if isTerminal && linesOnScreen > 0 {
                write("\u{1B}[\(linesOnScreen)A\r\u{1B}[J")
                linesOnScreen = 0
            }
            write(text + "\n")
        }
    }

    func finish() {
        guard !quiet else { return }
        reportEnded(urls)
        if isTerminal && linesOnScreen > 0 {
            write("\u{1B}[\(linesOnScreen)A\r\u{1B}[J")
            linesOnScreen = 0
        }
    }

    private func write(_ text: String) {
        StandardStreams.error(text)
    }
}
