import Foundation
import TDLCore
import TDLSession
import TDLTransfer

/// A `.metalink` or `.meta4` named where a URL goes (`tdl get`, an input file, the screen's
/// add prompt) is read — from disk, or fetched once — and stands for its files: one download
/// each, with the entry's own options (folder, connections, headers) under the document's
/// name, checksum, size and mirrors.
struct MetalinkInput {
    let settings: EngineSettings

    /// The largest document read from disk (one fetched is capped at 1 MiB by `TextFetch`).
    static let maxFileBytes = 4 << 20

    /// What `expand` made of a list.
    struct Expanded {
        var entries: [DownloadRequest] = []
        var problems: [String] = []
        var notes: [String] = []
        /// The documents (as their entries named them) whose several files left a checksum
        /// given with them unused, each with its count of files.
        var checksumsUnused: [(document: String, files: Int)] = []
    }

    /// `entries` with each Metalink one replaced by its files' downloads; a document that
    /// cannot be read or used is a problem, and its entry is left out. A note tells of an
    /// option given that its files do not get (a checksum, the user's headers).
    func expand(_ entries: [DownloadRequest]) -> Expanded {
        // Nearly every list names no Metalink: it is given back as it is.
        guard entries.contains(where: { Metalink.isMetalinkName($0.url) }) else { return Expanded(entries: entries) }
        var result = Expanded()
        for entry in entries {
            guard Metalink.isMetalinkName(entry.url) else {
                result.entries.append(entry)
                continue
            }
            do {
                let metalink = try read(entry.url, userAgent: entry.options.userAgent, cookieFile: entry.options.cookieFile)
                result.problems += metalink.problems.map { "\(ScreenSafe.url(entry.url)): \($0)" }
                var options = entry.options
                options.mirrors = nil
                let shown = ScreenSafe.url(entry.url)
                if let note = metalink.ignoredChecksumNote(given: options.checksum) {
                    result.notes.append("\(shown): \(note)")
                    result.checksumsUnused.append((entry.url, metalink.files.count))
                }
                let requests = Metalink.keepingUserData(metalink.requests(options: options), documentAt: entry.url)
                if let note = requests.note { result.notes.append("\(shown): \(note)") }
                result.entries += requests.requests
            } catch {
                result.problems.append("\(ScreenSafe.url(entry.url)): \(error)")
            }
        }
        return result
    }

    /// The document at `location`: a path (or file: URL) is read, a network URL fetched.
    func read(_ location: String, userAgent: String? = nil, cookieFile: String? = nil) throws -> Metalink {
        let bytes: [UInt8]
        let scheme = location.range(of: "://").map { location[..<$0.lowerBound].lowercased() }
        switch scheme {
        case nil, "file"?:
            let path = scheme == nil ? location : (URL(string: location)?.path ?? "")
            bytes = try Self.readFile(path)
        case let scheme? where Metalink.schemes.contains(scheme):
            if let problem = URLCheck.problem(with: location) { throw Failure(problem) }
            do {
                bytes = Array(try TextFetch.text(location, settings: settings, userAgent: userAgent, cookieFile: cookieFile).utf8)
            } catch {
                throw Failure("cannot fetch the Metalink document: \(error)")
            }
        case let scheme?:
            throw Failure("a Metalink document is read from a file or an http, https or ftp URL, not \(scheme)")
        }
        do { return try Metalink.parse(bytes) } catch { throw Failure(error.reason) }
    }

    static func readFile(_ path: String) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Failure("cannot read the Metalink file \(path)") }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maxFileBytes + 1) else { throw Failure("cannot read the Metalink file \(path)") }
        guard data.count <= maxFileBytes else { throw Failure("the Metalink file \(path) is larger than \(maxFileBytes >> 20) MiB") }
        return [UInt8](data)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
