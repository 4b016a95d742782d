/// The scroll position of a text view (help, details), moved with the list's keys. The text
/// itself is read at every draw (details change while a download runs), so the position is
/// clamped to it each time.
struct TextPager {
    private(set) var top = 0

    /// Applies a movement action; any other action changes nothing.
    mutating func perform(_ action: Action, lineCount: Int, height: Int) {
        switch action {
        case .moveUp: top -= 1
        case .moveDown: top += 1
        case .pageUp: top -= height
        case .pageDown: top += height
        case .first: top = 0
        case .last: top = lineCount
        default: return
        }
        clamp(lineCount: lineCount, height: height)
    }

    /// The last page stays full: never scrolled past the end.
    mutating func clamp(lineCount: Int, height: Int) {
        top = max(0, min(top, lineCount - height))
    }

    /// "lines 1–21 of 36, more below"; nil when everything fits.
    static func position(top: Int, lineCount: Int, height: Int) -> String? {
        guard lineCount > height else { return nil }
        let last = min(lineCount, top + height)
        let above = top > 0, below = last < lineCount
        let more = above && below ? "more above and below" : (above ? "more above" : "more below")
        return "lines \(top + 1)–\(last) of \(lineCount), \(more)"
    }
}
