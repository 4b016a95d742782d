import Foundation
import TDLCore

/// aria2c-style input: one URL per line, `#` comments, indented `key=value` lines applying to
/// the URL above them (`dir=`, `out=`, `checksum=`, `max-download-limit=`).
public struct InputFile {
    public struct Entry {
        public var url: String
        public var dir: String?
        public var out: String?
        public var checksum: String?
        /// Bytes per second for this file alone; 0 lifts an earlier limit.
        public var maxDownloadLimit: Int64?

        public init(url: String, dir: String? = nil, out: String? = nil, checksum: String? = nil, maxDownloadLimit: Int64? = nil) {
            self.url = url
            self.dir = dir
            self.out = out
            self.checksum = checksum
            self.maxDownloadLimit = maxDownloadLimit
        }
    }

    public var entries: [Entry] = []
    /// "line 7: unknown option \"foo\"" — reported, while the rest is still used.
    public var problems: [String] = []

    /// Parsed on the bytes: splitting a String into Characters treats "\r\n" as one character
    /// (a Windows-style file never split into lines), and it was most of the time of reading a
    /// list of 500 URLs. Every byte that matters here is ASCII.
    public init(bytes: [UInt8]) {
        // A UTF-8 byte order mark, as some Windows editors write, is not part of the first URL.
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        let lines = text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (number, line) in lines.enumerated() {
            let trimmed = Self.trimmed(line)
            if trimmed.isEmpty || trimmed.first == UInt8(ascii: "#") { continue }
            if Self.isBlank(line.first!) {
                guard !entries.isEmpty else {
                    problems.append("line \(number + 1): an option line with no URL above it")
                    continue
                }
                let pair = trimmed.split(separator: UInt8(ascii: "="), maxSplits: 1).map { String(decoding: $0, as: UTF8.self) }
                guard pair.count == 2 else {
                    problems.append("line \(number + 1): expected key=value, got \"\(String(decoding: trimmed, as: UTF8.self))\"")
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
            for url in trimmed.split(whereSeparator: Self.isBlank) {
                entries.append(Entry(url: String(decoding: url, as: UTF8.self)))
            }
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
