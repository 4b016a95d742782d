import Foundation
import TDLCore
import TDLSession

/// The lines of `tdl list`, one per row of its sections, made on two threads and written in
/// the rows' order: making a million lines (a lookup of each task, its fields as text) is
/// most of a listing after the load, and the load leaves the second core idle.
struct ParallelLines {
    /// Rows per piece of work, two pieces at a time: a JSON line is about 250 bytes, so the
    /// pieces add 4 MB to the listing's peak.
    static let chunkRows = 8_192

    /// Called with a section's index before its first lines are written, with the output and
    /// those lines' bytes: it may write a line before them or change them.
    var sectionStart: (Int, inout OutputBuffer, inout [UInt8]) -> Void
    /// Appends a row's line, given the section's index and the row's URL; false when there
    /// is no line for it. Runs on two threads at once: it sees only what it captures, which
    /// is Sendable (a `ListSnapshot`, never the manager).
    var line: @Sendable (Int, String, inout [UInt8]) -> Bool

    /// Writes the lines of every row of `sections` to `out` (flushed before each piece).
    func write(_ sections: [[String]], to out: inout OutputBuffer) {
        var chunks: [(section: Int, rows: Range<Int>)] = []
        for (s, urls) in sections.enumerated() {
            for start in stride(from: 0, to: urls.count, by: Self.chunkRows) {
                chunks.append((s, start ..< min(start + Self.chunkRows, urls.count)))
            }
        }
        var startedSections = Set<Int>()
        var next = 0
        while next < chunks.count {
            let wave = Array(chunks[next ..< min(next + 2, chunks.count)])
            let line = self.line
            let pieces = ParallelParts.map(wave.count) { k in
                let (section, rows) = wave[k]
                let urls = sections[section]
                var bytes: [UInt8] = []
                bytes.reserveCapacity(rows.count * 256)
                var lines = 0
                for row in rows where line(section, urls[row], &bytes) { lines += 1 }
                return (bytes: bytes, lines: lines)
            }
            for ((section, _), var piece) in zip(wave, pieces) where piece.lines > 0 {
                if startedSections.insert(section).inserted { sectionStart(section, &out, &piece.bytes) }
                out.flush()
                StandardStreams.output(piece.bytes)
            }
            next += wave.count
        }
    }
}
