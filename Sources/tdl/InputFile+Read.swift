// C's `stdin` is a global the C library owns: `-i -` reads it on the loop's thread alone.
@preconcurrency import Glibc
import Foundation
import TDLCore
import TDLSession

extension InputFile {
    /// The file at `path`, or standard input for "-", read whole (a line over the limit, or
    /// endless input, is refused before anything is added: see `InputFileParts`).
    static func read(_ path: String) throws -> (entries: [DownloadRequest], problems: [String]) {
        try InputFileParts(path: path, partSize: .max).rest()
    }
}

/// An input file (or standard input, "-") read a part at a time: a part ends before the first
/// line naming a download once it holds `partSize` entries, so what the whole file asks for
/// is what its parts ask for, and reading it needs the memory of one part.
final class InputFileParts {
    /// Entries a part holds: `TDL_ADD_PART` (a test reads a short file in several parts), else
    /// 100,000, about 90 MB while they are added (twice that into an empty session, where one
    /// part is committed while the next is added).
    static var defaultPartSize: Int {
        EnvironmentVariable.value("TDL_ADD_PART").flatMap(Int.init).map { max(1, $0) } ?? 100_000
    }

    let path: String
    let partSize: Int
    private var file: UnsafeMutablePointer<FILE>?
    private var parser = InputFile()
    /// Bytes read and not yet parsed start at `position`.
    private var block: [UInt8] = []
    private var position = 0
    private var readToEnd = false
    /// Every line is parsed and its part given out.
    private(set) var finished = false
    /// Parts given out: an add in parts has committed them.
    private var partsGiven = 0

    init(path: String, partSize: Int = InputFileParts.defaultPartSize) throws {
        self.path = path
        self.partSize = partSize
        file = path == "-" ? stdin : fopen(path, "r")
        if file == nil { throw CLIError.badArgument("cannot read the input file \(path)") }
    }

    deinit { closeFile() }

    /// The longest line read: a URL with its mirrors and a long header is a few KiB, and a
    /// file without line ends (`-i /dev/zero`) must not grow memory without bound.
    static let maxLineBytes = 64 * 1024

    /// The next part: its entries and the problems of its lines; nil once every part is given.
    /// A line over `maxLineBytes` ends the reading with an error naming it.
    func next() throws -> (entries: [DownloadRequest], problems: [String])? {
        guard !finished else { return nil }
        while true {
            if let newline = block[position...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = block[position ..< newline]
                if line.count > Self.maxLineBytes { throw tooLong() }
                if endsPart(before: line) { return take() }
                parser.read(line: line)
                position = newline + 1
            } else if block.count - position > Self.maxLineBytes {
                throw tooLong()
            } else if readToEnd {
                // The last line, with no "\n" after it (empty when the file ends with one).
                let line = block[position...]
                if endsPart(before: line) { return take() }
                parser.read(line: line)
                finished = true
                closeFile()
                return take()
            } else {
                try readBlock()
            }
        }
    }

    /// Every part left, as one.
    func rest() throws -> (entries: [DownloadRequest], problems: [String]) {
        var all: (entries: [DownloadRequest], problems: [String]) = ([], [])
        while let part = try next() {
            all.entries += part.entries
            all.problems += part.problems
        }
        return all
    }

    private func tooLong() -> CLIError {
        closeFile()
        finished = true
        let name = path == "-" ? "standard input" : path
        // A file read whole (or within its first part) adds nothing; one added in parts keeps
        // the parts before the line, as a crash between parts would.
        let added = partsGiven == 0 ? "nothing was added from it" : "the parts before it were added"
        return .badArgument("\(name): line \(parser.linesRead + 1) is longer than \(Self.maxLineBytes / 1024) KiB; \(added)")
    }

    private func endsPart(before line: ArraySlice<UInt8>) -> Bool {
        parser.entries.count >= partSize && InputFile.namesDownloads(line)
    }

    private func take() -> (entries: [DownloadRequest], problems: [String]) {
        partsGiven += 1
        let problems = parser.problems
        parser.problems = []
        return (parser.takeEntries(), problems)
    }

    private func readBlock() throws {
        block.removeSubrange(0 ..< position)
        position = 0
        // 64 KiB at a time: a block of 1 MiB zeroed and faulted in its 256 pages for a list of
        // a few URLs, a tenth of a millisecond of a 500-URL `get -i`.
        let size = 64 << 10
        let before = block.count
        block.append(contentsOf: repeatElement(0, count: size))
        let got = block.withUnsafeMutableBufferPointer { fread($0.baseAddress! + before, 1, size, file) }
        block.removeLast(size - got)
        if got == 0 {
            if ferror(file) != 0 { throw CLIError.badArgument("cannot read the input file \(path)") }
            readToEnd = true
        }
    }

    private func closeFile() {
        if let file, file != stdin { fclose(file) }
        file = nil
    }
}
