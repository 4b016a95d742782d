/// A Metalink document: Metalink 4 (RFC 5854) or Metalink 3 (metalinker.org), read for what a
/// download needs: each file's name, size, strongest hash, and URLs best first. It comes from
/// anyone's server: names go through `FileNameSanitizer`, only network URLs are kept, and
/// what tdl does not use (pieces, signatures, torrents, metaurls, OS and language) is skipped.
public struct Metalink: Sendable, Equatable {
    public struct File: Sendable, Equatable {
        /// Safe to use as a file name (the last part of the document's path, cleaned).
        public var name: String
        public var size: Int64?
        /// The strongest hash the document gives (sha-512 > sha-256 > sha-1 > md5).
        public var checksum: Checksum?
        /// Best first: the first is the download's URL, the others its mirrors.
        public var urls: [String]

        public init(name: String, size: Int64?, checksum: Checksum?, urls: [String]) {
            self.name = name
            self.size = size
            self.checksum = checksum
            self.urls = urls
        }
    }

    public enum Version: Int, Sendable { case three = 3, four = 4 }

    public var version: Version
    public var files: [File]
    /// Files left out, and why ("file 2 (x.iso): no http, https or ftp URL").
    public var problems: [String]

    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    static let namespace4 = "urn:ietf:params:xml:ns:metalink"
    static let namespace3 = "http://www.metalinker.org/"
    public static let maxFiles = 10_000
    public static let maxURLsPerFile = 100
    /// The schemes a file's URL may have: a document from the web may not name local files.
    public static let schemes: Set<String> = ["http", "https", "ftp", "ftps"]

    /// Whether a URL or path names a Metalink document by its extension (".metalink", ".meta4").
    /// Asked of every URL a command adds: compared on the bytes, without a copy.
    public static func isMetalinkName(_ text: String) -> Bool {
        let bytes = text.utf8
        let path = bytes[..<(bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex)]
        func ends(with suffix: StaticString) -> Bool {
            suffix.withUTF8Buffer { lower in
                path.count >= lower.count && zip(path.suffix(lower.count), lower).allSatisfy { byte, want in
                    byte == want || (want >= UInt8(ascii: "a") && want <= UInt8(ascii: "z") && byte == want - 0x20)
                }
            }
        }
        return ends(with: ".metalink") || ends(with: ".meta4")
    }

    public static func parse(_ bytes: [UInt8]) throws(Failure) -> Metalink {
        let root: StrictXML.Element
        do { root = try StrictXML.parse(bytes) } catch { throw Failure(reason: "not a Metalink document: \(error)") }
        let namespace = root.attribute(root.prefix.isEmpty ? "xmlns" : "xmlns:" + root.prefix)
        guard root.name == "metalink", let namespace else {
            throw Failure(reason: "not a Metalink document: the root is <\(root.name)> without Metalink's namespace")
        }
        let mine = root.children.filter { $0.prefix == root.prefix }
        var metalink: Metalink
        switch namespace {
        case namespace4:
            metalink = Metalink(version: .four, files: [], problems: [])
            try metalink.read(mine.filter { $0.name == "file" }, prefix: root.prefix)
        case namespace3:
            metalink = Metalink(version: .three, files: [], problems: [])
            let lists = mine.filter { $0.name == "files" }
            try metalink.read(lists.flatMap { $0.children.filter { $0.prefix == root.prefix && $0.name == "file" } }, prefix: root.prefix)
        default:
            throw Failure(reason: "not a Metalink document: unknown namespace \(TerminalText.clean(namespace))")
        }
        if metalink.files.isEmpty {
            let first = metalink.problems.prefix(3).joined(separator: "; ") + (metalink.problems.count > 3 ? "; …" : "")
            throw Failure(reason: "the Metalink document has no file tdl can download" + (first.isEmpty ? "" : ": " + first))
        }
        return metalink
    }

    private mutating func read(_ elements: [StrictXML.Element], prefix: String) throws(Failure) {
        guard elements.count <= Self.maxFiles else { throw Failure(reason: "more than \(Self.maxFiles) files in one Metalink document") }
        for (index, element) in elements.enumerated() {
            let raw = element.attribute("name") ?? ""
            let shown = "file \(index + 1)" + (raw.isEmpty ? "" : " (\(TerminalText.clean(String(raw.prefix(80)))))")
            let mine = element.children.filter { $0.prefix == prefix }
            guard let name = FileNameSanitizer.sanitize(raw) else {
                problems.append("\(shown): no usable name")
                continue
            }
            var size: Int64?
            if let sizeText = mine.first(where: { $0.name == "size" })?.text.trimmingWhitespace() {
                guard let value = Int64(sizeText), value >= 0 else {
                    problems.append("\(shown): size \"\(TerminalText.clean(String(sizeText.prefix(40))))\" is not a number of bytes")
                    continue
                }
                size = value
            }
            let hashes = version == .four ? mine.filter { $0.name == "hash" }
                : mine.filter { $0.name == "verification" }.flatMap { $0.children.filter { $0.prefix == prefix && $0.name == "hash" } }
            let urls = version == .four ? urls4(mine) : urls3(mine, prefix: prefix)
            guard !urls.isEmpty else {
                problems.append("\(shown): no \(Self.schemes.sorted().joined(separator: ", ")) URL")
                continue
            }
            files.append(File(name: name, size: size, checksum: Self.strongest(hashes), urls: urls))
        }
    }

    /// Metalink 4: `<url priority="1">`, 1 preferred over 2; without a priority, last.
    private func urls4(_ children: [StrictXML.Element]) -> [String] {
        let ranked = children.filter { $0.name == "url" }.enumerated().map { index, url in
            (url, Int(url.attribute("priority") ?? "") ?? 1_000_000, index)
        }
        return Self.usable(ranked.sorted { ($0.1, $0.2) < ($1.1, $1.2) }.map { $0.0.text })
    }

    /// Metalink 3: `<resources><url type="http" preference="100">`, 100 preferred over 10.
    private func urls3(_ children: [StrictXML.Element], prefix: String) -> [String] {
        let urls = children.filter { $0.name == "resources" }.flatMap { $0.children.filter { $0.prefix == prefix && $0.name == "url" } }
        let ranked = urls.enumerated().compactMap { index, url -> (StrictXML.Element, Int, Int)? in
            // "bittorrent" and other types are not URLs of the file itself.
            if let type = url.attribute("type")?.lowercased(), !Self.schemes.contains(type) { return nil }
            return (url, Int(url.attribute("preference") ?? "") ?? 0, index)
        }
        return Self.usable(ranked.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.2 < $1.2 }.map { $0.0.text })
    }

    /// The URLs tdl may download, trimmed, each once, at most `maxURLsPerFile`.
    static func usable(_ texts: [String]) -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for text in texts {
            let url = String(text.trimmingWhitespace())
            let scheme = url.prefix { $0 != ":" }.lowercased()
            guard schemes.contains(scheme), url.contains("://"), URLCheck.problem(with: url) == nil else { continue }
            guard seen.insert(url).inserted else { continue }
            result.append(url)
            if result.count == maxURLsPerFile { break }
        }
        return result
    }

    /// The strongest hash whose type tdl knows and whose digest has the right length.
    static func strongest(_ hashes: [StrictXML.Element]) -> Checksum? {
        let order: [Checksum.Algorithm] = [.sha512, .sha256, .sha1, .md5]
        let checksums = hashes.compactMap { hash -> Checksum? in
            guard let type = hash.attribute("type") else { return nil }
            return Checksum("\(type)=\(hash.text.trimmingWhitespace())")
        }
        return order.lazy.compactMap { algorithm in checksums.first { $0.algorithm == algorithm } }.first
    }

    /// One download per file: its best URL, the others as mirrors, its name and checksum,
    /// and `options`' other fields. A checksum given is one file's: in a document of one file
    /// it is that file's, over the document's own (the user pinned it; the document is any
    /// server's); in a document of several it is no file's (see `ignoredChecksumNote`).
    public func requests(options: DownloadOptions = DownloadOptions()) -> [DownloadRequest] {
        let given = files.count == 1 ? options.checksum : nil
        return files.map { file in
            var own = options
            own.fileName = file.name
            own.checksum = given ?? file.checksum
            own.mirrors = file.urls.count > 1 ? Array(file.urls.dropFirst()) : nil
            own.expectedSize = file.size
            return DownloadRequest(url: file.urls[0], options: own)
        }
    }

    /// What to tell when a checksum given is not used: the document lists several files, and
    /// which of them it is for is not known.
    public func ignoredChecksumNote(given: Checksum?) -> String? {
        guard given != nil, files.count > 1 else { return nil }
        return "the checksum given is ignored: it is one file's, and the document lists \(files.count) files"
    }
}
