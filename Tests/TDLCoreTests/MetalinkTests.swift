import PropertyBased
import TDLCore
import Testing

/// Metalink documents read as the downloads they describe; hostile ones refused or cleaned.
@Suite struct MetalinkTests {
    typealias Docs = MetalinkDocuments

    static func parse(_ text: String) throws -> Metalink { try Metalink.parse(Array(text.utf8)) }

    static func failure(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// The document at `text`, checked to be of `version` with `files` files.
    static func parse(_ text: String, version: Metalink.Version, files: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> Metalink {
        let metalink = try parse(text)
        #expect(metalink.version == version, sourceLocation: sourceLocation)
        #expect(metalink.files.count == files, sourceLocation: sourceLocation)
        return metalink
    }

    @Test func metalink4GivesNameSizeStrongestHashAndURLsByPriority() throws {
        let metalink = try Self.parse(Docs.four, version: .four, files: 2)
        // Priority 1 first, then 2, 3, then the one without; the file: URL and the torrent are not kept.
        #expect(metalink.files[0] == Metalink.File(name: "example.ext", size: 14_471_447, checksum: Checksum(algorithm: .sha256, hex: Docs.sha256),
                                                   urls: ["ftp://ftp.example.com/example.ext", "http://example.com/example.ext",
                                                          "https://mirror.example.org/dl?f=example.ext&v=1", "http://no-priority.example.net/example.ext"]))
        #expect(metalink.files[1] == Metalink.File(name: "second.iso", size: nil, checksum: nil, urls: ["http://example.com/second.iso"]))
        #expect(metalink.problems.isEmpty)
    }

    @Test func metalink3GivesURLsByPreferenceWithoutTorrents() throws {
        let metalink = try Self.parse(Docs.three, version: .three, files: 1)
        #expect(metalink.files[0] == Metalink.File(name: "aria2-0.5.2.tar.bz2", size: 409_600, checksum: Checksum(algorithm: .sha1, hex: Docs.sha1),
                                                   urls: ["http://httpd.mirror.us/aria2-0.5.2.tar.bz2", "ftp://ftp.mirror.jp/aria2-0.5.2.tar.bz2",
                                                          "http://httpd.mirror.jp/aria2-0.5.2.tar.bz2"]))
    }

    @Test func extremePreferencesAndPrioritiesStillOrder() throws {
        let three = """
            <metalink xmlns="http://www.metalinker.org/"><files><file name="a"><resources>
            <url preference="-9223372036854775808">http://h/low</url><url preference="9223372036854775807">http://h/high</url>
            <url preference="x">http://h/none</url></resources></file></files></metalink>
            """
        #expect(try Self.parse(three).files[0].urls == ["http://h/high", "http://h/none", "http://h/low"])
        let four = """
            <metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="a"><url priority="9223372036854775807">http://h/last</url>
            <url priority="-9223372036854775808">http://h/first</url></file></metalink>
            """
        #expect(try Self.parse(four).files[0].urls == ["http://h/first", "http://h/last"])
    }

    @Test func eachFileIsOneDownloadWithItsMirrorsNameChecksumAndSize() throws {
        let requests = try Self.parse(Docs.four).requests(options: DownloadOptions(directory: "/d", fileName: "ignored", connections: 4))
        #expect(requests.count == 2)
        #expect(requests[0].url == "ftp://ftp.example.com/example.ext")
        #expect(requests[0].options.mirrors?.count == 3)
        #expect(requests[0].options.fileName == "example.ext")
        #expect(requests[0].options.checksum?.algorithm == .sha256)
        #expect(requests[0].options.expectedSize == 14_471_447)
        #expect(requests[0].options.directory == "/d")
        #expect(requests[0].options.connections == 4)
        #expect(requests[1].options.mirrors == nil)
        #expect(requests[1].options.expectedSize == nil)
    }

    /// A checksum given is one file's: in a document of several files, a file without a hash
    /// does not get it (it would fail for sure); in a document of one file it is that file's.
    @Test func aChecksumGivenIsForADocumentOfOneFileOnly() throws {
        let given = Checksum(algorithm: .sha256, hex: String(repeating: "ab", count: 32))
        let two = try Self.parse(Docs.four)
        let requests = two.requests(options: DownloadOptions(checksum: given))
        #expect(requests[0].options.checksum?.hex == Docs.sha256, "the document's own hash holds")
        #expect(requests[1].options.checksum == nil)
        #expect(two.ignoredChecksumNote(given: given)?.contains("ignored") == true)
        #expect(two.ignoredChecksumNote(given: nil) == nil)
        let one = try Self.parse("""
            <metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="a"><url>http://h/a</url></file></metalink>
            """)
        #expect(one.requests(options: DownloadOptions(checksum: given))[0].options.checksum == given)
        #expect(one.ignoredChecksumNote(given: given) == nil)
        // A document's own hash does not replace the one the user pinned: a server could name
        // the hash of whatever file it serves.
        let hashed = try Self.parse("""
            <metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="a"><url>http://h/a</url>
            <hash type="sha-256">\(Docs.sha256)</hash></file></metalink>
            """)
        #expect(hashed.requests()[0].options.checksum?.hex == Docs.sha256)
        #expect(hashed.requests(options: DownloadOptions(checksum: given))[0].options.checksum == given)
    }

    /// The indentation between thousands of files is no text of `<files>`: a pretty-printed
    /// document under `maxFiles` is read, however deep its indentation.
    @Test func indentationBetweenManyFilesIsNotCountedAsText() throws {
        let indent = "\r\n" + String(repeating: " ", count: 8)
        let count = 7_300
        var text = "<metalink version=\"3.0\" xmlns=\"http://www.metalinker.org/\">\(indent)<files>"
        for i in 0..<count {
            text += "\(indent)<file name=\"f\(i)\">\(indent)<resources><url type=\"http\">http://h/f\(i)</url></resources>\(indent)</file>"
        }
        text += "\(indent)</files>\(indent)</metalink>"
        #expect(indent.utf8.count * count > 64 * 1024, "sanity: the indentation alone is over the text limit")
        let metalink = try Self.parse(text)
        #expect(metalink.files.count == count)
        #expect(metalink.files.last?.urls == ["http://h/f\(count - 1)"])
        // Text that is not whitespace still counts.
        let long = "<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\"><file name=\"a\"><url>http://h/a</url></file>"
            + String(repeating: "x", count: 64 * 1024 + 1) + "</metalink>"
        #expect(Self.failure(long)?.contains("KiB") == true)
    }

    /// The user's headers, Referer and cookie file go with a file only when all its URLs are
    /// on the document's origin (scheme, host, port); a document on disk chose every host.
    @Test func theUsersDataStaysWithTheDocumentsOwnOrigin() throws {
        let metalink = try Self.parse("""
            <metalink xmlns="urn:ietf:params:xml:ns:metalink">
              <file name="same"><url>http://docs.example:8080/same</url></file>
              <file name="port"><url>http://docs.example:8080/a</url><url>http://docs.example:9090/a</url></file>
              <file name="host"><url>http://other.example:8080/b</url></file>
            </metalink>
            """)
        let options = DownloadOptions(headers: ["Authorization: Bearer x"], userAgent: "agent", referer: "http://r/", cookieFile: "/c.txt")
        let requests = metalink.requests(options: options)
        let remote = Metalink.keepingUserData(requests, documentAt: "http://DOCS.example:8080/list.meta4")
        #expect(remote.requests[0].options == requests[0].options)
        for dropped in remote.requests.dropFirst() {
            #expect(dropped.options.headers == nil && dropped.options.referer == nil && dropped.options.cookieFile == nil)
            #expect(dropped.options.userAgent == "agent")
        }
        #expect(remote.note?.contains("port and 1 other file") == true)
        let local = Metalink.keepingUserData(requests, documentAt: "/home/u/list.meta4")
        #expect(local.requests.allSatisfy { $0.options.headers == nil })
        #expect(Metalink.keepingUserData(metalink.requests(), documentAt: "/home/u/list.meta4").note == nil)
    }

    @Test func aPrefixedNamespaceReadsTheSame() throws {
        let text = """
            <m:metalink xmlns:m="urn:ietf:params:xml:ns:metalink"><m:file name="a.bin"><m:size>3</m:size>\
            <m:url>http://h/a.bin</m:url><other:url xmlns:other="x">http://other/a.bin</other:url></m:file></m:metalink>
            """
        let metalink = try Self.parse(text)
        #expect(metalink.files == [Metalink.File(name: "a.bin", size: 3, checksum: nil, urls: ["http://h/a.bin"])])
    }

    @Test func hostileNamesAreCleanedOrTheFileLeftOut() throws {
        let text = Docs.four([("../../x", ["http://h/1"]), ("/etc/passwd", ["http://h/2"]),
                              ("a\u{1B}]0;title\u{07}b&#27;[2J.bin", ["http://h/3"]), ("../..", ["http://h/4"]),
                              ("sub\\..\\win.exe", ["http://h/5"])])
        let metalink = try Self.parse(text)
        let names = metalink.files.map(\.name)
        #expect(names.count == 4)
        #expect(names[0] == "x")
        #expect(names[1] == "passwd")
        #expect(names[3] == "win.exe")
        for name in names {
            #expect(!name.contains("/") && !name.hasPrefix(".") && !name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
        }
        #expect(metalink.problems == ["file 4 (../..): no usable name"])
    }

    @Test func onlyNetworkURLsAreKept() throws {
        let text = Docs.four([("a", ["file:///etc/passwd", "javascript:alert(1)", "sftp://h/a", "http://h/a", "http://h/a", " https://h/b "]),
                              ("b", ["file:///etc/shadow"])])
        let metalink = try Self.parse(text)
        #expect(metalink.files.map(\.urls) == [["http://h/a", "https://h/b"]])
        #expect(metalink.problems.count == 1)
        #expect(Self.failure(Docs.four([("b", ["file:///etc/shadow"])]))?.contains("no file tdl can download") == true)
    }

    @Test func doctypesAndEntityDeclarationsAreRefused() {
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>
            <metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="&lol2;"><url>http://h/a</url></file></metalink>
            """
        #expect(Self.failure(laughs)?.contains("line 2: DOCTYPE") == true)
        let external = """
            <!DOCTYPE m SYSTEM "file:///etc/passwd"><metalink xmlns="urn:ietf:params:xml:ns:metalink"/>
            """
        #expect(Self.failure(external)?.contains("DOCTYPE") == true)
        let unknownEntity = Docs.four([("&xxe;", ["http://h/a"])])
        #expect(Self.failure(unknownEntity)?.contains("unknown entity &xxe;") == true)
    }

    @Test func malformedAndOversizedDocumentsAreRefused() {
        #expect(Self.failure("<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\"><file name=\"a\"></metalink>")?.contains("does not match") == true)
        #expect(Self.failure("<html><body>not found</body></html>")?.contains("not a Metalink document") == true)
        #expect(Self.failure("<metalink xmlns=\"http://example.org/\"/>")?.contains("unknown namespace") == true)
        #expect(Self.failure("<metalink xmlns='urn:ietf:params:xml:ns:metalink'><file name=a/></metalink>")?.contains("without quotes") == true)
        #expect(Self.failure(#"<?xml version="1.0" encoding="ISO-8859-1"?><metalink/>"#)?.contains("not UTF-8") == true)
        let deep = String(repeating: "<a>", count: 40) + String(repeating: "</a>", count: 40)
        #expect(Self.failure(deep)?.contains("nested deeper") == true)
        let longText = "<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\"><file name=\"a\"><url>http://h/"
            + String(repeating: "a", count: 70_000) + "</url></file></metalink>"
        #expect(Self.failure(longText)?.contains("longer than") == true)
        let many = Docs.four(Array(repeating: (name: "a", urls: ["http://h/a"]), count: Metalink.maxFiles + 1))
        #expect(Self.failure(many)?.contains("more than \(Metalink.maxFiles) files") == true)
        #expect(Self.failure(Docs.four([("a", ["http://h/a"])]) + "<second/>")?.contains("after the root") == true)
        #expect(Self.failure("<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\"><file name=\"a\"><size>-1</size><url>http://h/a</url></file></metalink>")?
            .contains("not a number of bytes") == true)
    }

    @Test func theExtensionNamesADocument() {
        #expect(Metalink.isMetalinkName("https://h/x.meta4"))
        #expect(Metalink.isMetalinkName("https://h/x.METALINK?mirrorlist"))
        #expect(Metalink.isMetalinkName("dir/x.metalink"))
        #expect(!Metalink.isMetalinkName("https://h/x.iso?name=a.meta4"))
        #expect(!Metalink.isMetalinkName("https://h/x.meta4.sig"))
    }

    // MARK: Random and garbled input

    static let xmlish = Gen<Character?>.element(of: Array("<>/=\"'&;#x!?-[]: \n\tCDATAmetalinkfileurlhashsize0123456789") as [Character])
        .map { $0! }.string(of: 0...200)

    @Test func randomBytesNeverTrap() async {
        await propertyCheck(count: 1000, input: Gen.uint8().array(of: 0...300)) { bytes in
            _ = try? Metalink.parse(bytes)
        }
        await propertyCheck(count: 2000, input: Self.xmlish) { text in
            _ = try? Metalink.parse(Array(text.utf8))
            _ = try? Metalink.parse(Array(("<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\"><file name=\"a\">" + text).utf8))
        }
    }

    /// Real documents with bytes changed, cut or repeated: never a trap, and what still reads
    /// has only safe names and network URLs.
    @Test func garbledDocumentsNeverTrapAndNeverGiveUnsafeFiles() async {
        let documents = [Array(Docs.four.utf8), Array(Docs.three.utf8)]
        let edits = Gen.int(in: 0...Int(UInt32.max)).array(of: 1...6)
        await propertyCheck(count: 3000, input: edits) { edits in
            var bytes = documents[edits[0] % 2]
            for edit in edits {
                let at = (edit >> 3) % bytes.count
                switch edit % 4 {
                case 0: bytes[at] = UInt8(truncatingIfNeeded: edit >> 16)
                case 1: bytes.removeSubrange(at...)
                case 2:
                    let piece = Array(bytes[at ..< min(bytes.count, at + (edit >> 20) % 64)])
                    bytes.insert(contentsOf: piece, at: at)
                default: bytes.remove(at: at)
                }
                if bytes.isEmpty { bytes = [0x3C] }
            }
            guard let metalink = try? Metalink.parse(bytes) else { return }
            for file in metalink.files {
                #expect(FileNameSanitizer.sanitize(file.name) == file.name)
                #expect(!file.name.contains("/") && !file.name.hasPrefix("."))
                #expect(!file.urls.isEmpty)
                for url in file.urls {
                    #expect(Metalink.schemes.contains(String(url.prefix { $0 != ":" }).lowercased()))
                }
            }
        }
    }
}
