import Foundation
import TDLCore

/// aria2c-style input: one URL per line, `#` comments, indented `key=value` lines applying to
/// the URL above them, read by `DownloadOption` (`dir=`, `out=`, `checksum=`,
/// `max-download-limit=`, `split=`, `header=` (repeatable), `user-agent=`, `referer=`,
/// `load-cookies=`).
public struct InputFile {
    /// The downloads, each with the options its own lines give (a relative `dir=` made
    /// absolute here: the tdl that carries them out may have another working directory).
    public var entries: [DownloadRequest] = []
    /// "line 7: unknown option \"foo\"" — reported, while the rest is still used.
    public var problems: [String] = []

    /// Lines read so far, for the numbers in `problems`.
    private var lineCount = 0
    /// Entries left out, by index in `entries`: a bad `checksum=` line's, a URL that is not
    /// valid UTF-8. They stay until taken so that their option lines are not another's.
    private var leftOut = Set<Int>()

    /// Lines read so far.
    public var linesRead: Int { lineCount }

    /// Parsed on the bytes: splitting a String into Characters treats "\r\n" as one character
    /// (a Windows-style file never split into lines), and it was most of the time of reading a
    /// list of 500 URLs. Every byte that matters here is ASCII.
    public init(bytes: [UInt8]) {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        entries.reserveCapacity(lines.count)
        for line in lines { read(line: line) }
        entries = takeEntries()
    }

    /// Nothing read yet: lines are given one at a time with `read(line:)`.
    public init() {}

    /// Whether `line` names downloads (rather than options of the one above, or nothing): an
    /// input can be cut in parts before such a line without changing what it asks for.
    public static func namesDownloads(_ line: ArraySlice<UInt8>) -> Bool {
        guard let first = line.first, !isBlank(first) else { return false }
        let trimmed = Self.trimmed(line)
        return !trimmed.isEmpty && trimmed.first != UInt8(ascii: "#")
    }

    /// The entries read since the last call, without those a bad `checksum=` line left out.
    /// Every option line of the last one must have been read (see `namesDownloads`).
    public mutating func takeEntries() -> [DownloadRequest] {
        var taken: [DownloadRequest] = []
        swap(&taken, &entries)
        // Copied only when something is left out: a million requests are 184 MB.
        if !leftOut.isEmpty { taken = taken.indices.filter { !leftOut.contains($0) }.map { taken[$0] } }
        leftOut = []
        return taken
    }

    /// Reads the next line, without its "\n".
    public mutating func read(line: ArraySlice<UInt8>) {
        // A UTF-8 byte order mark, as some Windows editors write, is not part of the first URL.
        let line = lineCount == 0 && line.starts(with: [0xEF, 0xBB, 0xBF]) ? line.dropFirst(3) : line
        lineCount += 1
        let trimmed = Self.trimmed(line)
        if trimmed.isEmpty || trimmed.first == UInt8(ascii: "#") { return }
        let at = "line \(lineCount): "
        // Decoded with U+FFFD in place of bad bytes, it would be another URL, or another name.
        if String(validating: trimmed, as: UTF8.self) == nil {
            problems.append(at + "not valid UTF-8; " + (Self.isBlank(line.first!) ? "the option is left out" : "the URL is left out"))
            if !Self.isBlank(line.first!) {
                entries.append(DownloadRequest(url: String(decoding: trimmed, as: UTF8.self)))
                leftOut.insert(entries.count - 1)
            }
            return
        }
        if Self.isBlank(line.first!) {
            guard !entries.isEmpty else {
                problems.append(at + "an option line with no URL above it")
                return
            }
            let pair = trimmed.split(separator: UInt8(ascii: "="), maxSplits: 1).map { String(decoding: $0, as: UTF8.self) }
            guard pair.count == 2 else {
                problems.append(at + "expected key=value, got \"\(String(decoding: trimmed, as: UTF8.self))\"")
                return
            }
            var options = entries[entries.count - 1].options
            do {
                try DownloadOption.read(pair[0], pair[1], into: &options, absolute: Paths.absolute)
            } catch {
                var problem = at + error.message(as: pair[0])
                if error.option == .checksum {
                    // Downloaded unverified, it would be reported done for a file nobody checked.
                    problem += "; \(ScreenSafe.url(entries[entries.count - 1].url)) is left out"
                    leftOut.insert(entries.count - 1)
                }
                problems.append(problem)
                return
            }
            entries[entries.count - 1].options = options
            return
        }
        // As aria2 reads them: URLs separated by tabs are mirrors of one file (the first is
        // its identity); separated by spaces, they are several downloads. Most lines are one
        // URL alone, taken as it is.
        if !trimmed.contains(where: Self.isBlank) {
            entries.append(DownloadRequest(url: String(decoding: trimmed, as: UTF8.self)))
            return
        }
        for group in trimmed.split(separator: UInt8(ascii: " ")) {
            let urls = group.split(separator: UInt8(ascii: "\t")).map { String(decoding: $0, as: UTF8.self) }
            guard let first = urls.first else { continue }
            entries.append(DownloadRequest(url: first, options: DownloadOptions(mirrors: urls.count > 1 ? Array(urls.dropFirst()) : nil)))
        }
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

    /// Without ASCII white space at either end, "\r" of a Windows line end included.
    private static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || (0x09 ... 0x0D).contains(byte) }
        guard let first = line.firstIndex(where: { !isSpace($0) }), let last = line.lastIndex(where: { !isSpace($0) }) else { return [] }
        return line[first ... last]
    }
}
