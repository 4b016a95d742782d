import Foundation
import TDLCore

/// aria2.addMetalink: a Metalink document (base64), one download per file it describes.
extension Aria2RPC {
    /// Each file is added as `aria2.addUri` adds one (the same policy, options, pause and
    /// position), with its best URL first and the others as mirrors; the document's name,
    /// checksum and size hold over the caller's options. The GIDs of those added come back in
    /// the document's order; a file refused is told in `notes`.
    func addMetalink(_ p: Params) throws -> JSON {
        guard let encoded = p.string(0) else { throw p.wrong(0) }
        // A document is at most a few MiB: base64 of 4 MiB is under 6 MiB.
        guard encoded.utf8.count <= 6 << 20,
              let data = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters) else {
            throw RPCFault(1, "the metalink parameter is not a base64-encoded Metalink document")
        }
        let metalink: Metalink
        do { metalink = try Metalink.parse([UInt8](data)) } catch { throw RPCFault(1, error.reason) }
        let options = p.values.count > 1 ? p.values[1] : JSON.object([])
        var position: Int?
        if p.values.count > 2 {
            guard let given = p.int(2) else { throw p.wrong(2) }
            guard given >= 0 else { throw RPCFault(1, "Position must be greater than or equal to 0.") }
            position = given
        }
        // A checksum given is one file's: it stands only for a document of one file.
        let onlyFile = metalink.files.count == 1
        if let note = metalink.ignoredChecksumNote(given: options["checksum"]?.string.flatMap(Checksum.init)) {
            notes.append("aria2.addMetalink: \(note)")
        }
        var gids: [JSON] = []
        var refused: [String] = []
        for (index, file) in metalink.files.enumerated() {
            var values: [JSON] = [.array(file.urls.map(JSON.string)), options]
            // The caller's number, clamped: a sum that overflowed would end tdl.
            if let position { values.append(.string(String(Self.clampedSum(position, index)))) }
            do {
                gids.append(try addUri(Params(values)) { options in
                    options.fileName = file.name
                    options.checksum = file.checksum ?? (onlyFile ? options.checksum : nil)
                    options.expectedSize = file.size
                })
            } catch {
                refused.append("\(file.name): \((error as? RPCFault)?.message ?? "\(error)")")
            }
        }
        // As aria2: the files added are the answer, those refused are told; only when none
        // was added is the call an error.
        guard !gids.isEmpty else { throw RPCFault(1, refused.first ?? "the Metalink document lists no file") }
        notes += refused.map { "aria2.addMetalink did not add \($0)" }
        return .array(gids)
    }
}
