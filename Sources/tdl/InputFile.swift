import Foundation
import TDLCore

/// aria2c-style input: one URL per line, `#` comments, indented `key=value` lines applying to
/// the URL above them (`dir=`, `out=`, `checksum=`, `max-download-limit=`).
struct InputFile {
    struct Entry {
        var url: String
        var dir: String?
        var out: String?
        var checksum: String?
        /// Bytes per second for this file alone; 0 lifts an earlier limit.
        var maxDownloadLimit: Int64?
    }

    var entries: [Entry] = []
    /// "line 7: unknown option \"foo\"" — reported, while the rest is still used.
    var problems: [String] = []

    init(text: String) {
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.hasSuffix("\r") ? String(rawLine.dropLast()) : String(rawLine)
            let trimmed = line.trimmingWhitespace()
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if line.first == " " || line.first == "\t" {
                guard !entries.isEmpty else {
                    problems.append("line \(number + 1): an option line with no URL above it")
                    continue
                }
                let pair = trimmed.split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2 else {
                    problems.append("line \(number + 1): expected key=value, got \"\(trimmed)\"")
                    continue
                }
                switch pair[0] {
                case "dir": entries[entries.count - 1].dir = pair[1]
                case "out": entries[entries.count - 1].out = pair[1]
                case "checksum": entries[entries.count - 1].checksum = pair[1]
                case "max-download-limit":
                    guard let rate = ByteFormat.parseRate(pair[1]) else {
                        problems.append("line \(number + 1): max-download-limit must look like 500K, 2M or 1048576")
                        continue
                    }
                    entries[entries.count - 1].maxDownloadLimit = rate
                default: problems.append("line \(number + 1): unknown option \"\(pair[0])\"")
                }
                continue
            }
            // Several URLs on one line are several downloads (aria2 treats them as mirrors; tdl keeps it simple).
            for url in trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
                entries.append(Entry(url: String(url)))
            }
        }
    }

    static func read(_ path: String) throws -> InputFile {
        let text: String
        if path == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CLIError.badArgument("cannot read the input file \(path)")
            }
            text = String(decoding: data, as: UTF8.self)
        }
        return InputFile(text: text)
    }
}
