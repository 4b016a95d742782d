import TDLCore

/// Whether an answer carries the very file a download writes: a resume's 206 against the
/// validators and total stored with the partial, a mirror's first answer against the file.
extension FileDownload {
    /// The end of the bytes received so far, over every segment.
    var highestReceived: Int64 {
        segments.highestReceived
    }

    /// A 206 must be the version whose bytes the part file holds: same ETag (else
    /// Last-Modified) and a total that is sound and the known size. A server that ignores
    /// If-Range answers a swapped file with 206 too. Sets the connection's stop reason when not.
    func answerIsThisVersion(_ connection: Connection) -> Bool {
        guard isHTTP, connection.status == 206 else { return true }
        let headers = connection.headers
        let validator = ResumeValidator(etag: etag, lastModified: lastModified)
        // A mirror's first answer is judged as a mirror (dropped, never restarting the file).
        let mirrorsFirst = resolved && sources.count > 1 && !sources[connection.source].verified
        let total = headers["content-range"].flatMap(ContentRange.init)?.total
        switch TotalCheck.verdict(total: total, requestStart: connection.requestStart, held: highestReceived,
                                  known: size, sameStrongETag: validator.sameStrongETag(headers["etag"])) {
        case .broken(let why):
            connection.stopReason = .brokenAnswer(why)
            return false
        case .changed(let why):
            connection.stopReason = mirrorsFirst ? .otherFile(mismatch(of: connection) ?? why) : .fileChanged(why)
            return false
        case .fine:
            break
        }
        if let why = validator.mismatch(etag: headers["etag"], lastModified: headers["last-modified"]) {
            connection.stopReason = mirrorsFirst ? .otherFile(why) : .fileChanged(why)
            return false
        }
        return true
    }

    /// Why a mirror's first answer is not this file: another size or validator; nil when it is.
    func mismatch(of connection: Connection) -> String? {
        let headers = connection.headers
        let total = connection.status == 206 ? headers["content-range"].flatMap(ContentRange.init)?.total
            : connection.status == 200 ? Connection.byteCount(headers["content-length"]) : nil
        if let total, total != size {
            return "another size (\(total) bytes, not \(size.map(String.init) ?? "?"))"
        }
        return ResumeValidator(etag: etag, lastModified: lastModified)
            .mismatch(etag: headers["etag"], lastModified: headers["last-modified"])
    }
}
