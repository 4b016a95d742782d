/// The top line: where you are and how the downloads go, joined by " · ".
///
///     tdl · default · Downloads · sort: add time ↑ · 4 downloading, 2 done · 1.2 MB/s ETA 0:42 · max 3 · ≤ 2.0 MB/s
///
/// When it does not fit, the counts by state shrink to their marks ("4↓ 2✓"), then the
/// program's name goes, then the counts, then the words "sort:" and "ETA"; session, view,
/// sort, speed and the download limits stay. Only then is a long view title (a filter) cut.
struct HeaderLine {
    /// A part in words, and shorter for a narrow screen.
    struct Part {
        var full: String
        var short: String
    }

    var session: String
    var view: String
    /// "sort: add time ↑", or the trash's fixed order.
    var order = Part(full: "", short: "")
    /// The counts by state; nil when there is nothing to count.
    var counts: Part?
    /// Overall speed and ETA, only while something downloads.
    var speed: Part?
    var limit = ""

    func text(width: Int) -> String {
        let attempts: [(program: Bool, counts: String?, short: Bool)] = [
            (true, counts?.full, false), (true, counts?.short, false), (false, counts?.short, false),
            (true, nil, false), (false, nil, false), (false, nil, true),
        ]
        for attempt in attempts {
            let line = joined(program: attempt.program, view: view, counts: attempt.counts, short: attempt.short)
            if ScreenText.width(line) <= width { return line }
        }
        let others = ScreenText.width(joined(program: false, view: "", counts: nil, short: true))
        let view = ScreenText.fit(self.view, max(8, width - others - 3))
        return ScreenText.fit(joined(program: false, view: view, counts: nil, short: true), width)
    }

    func joined(program: Bool, view: String, counts: String?, short: Bool) -> String {
        let parts: [String?] = [program ? "tdl" : nil, session, view, short ? order.short : order.full,
                                counts, short ? speed?.short : speed?.full, limit]
        return parts.compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " · ")
    }
}
