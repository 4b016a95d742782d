/// Whether an answer is the file whose bytes the part file holds, by the validators stored
/// with the partial: the ETag, else Last-Modified. A server that ignores `If-Range` answers a
/// swapped file's range with 206 too; without this check its bytes were appended to the old ones.
struct ResumeValidator {
    let etag: String?
    let lastModified: String?

    /// Why the answer is another version of the file; nil when it is this one, or when
    /// nothing tells (no validator on either side).
    func mismatch(etag theirs: String?, lastModified theirDate: String?) -> String? {
        if let theirs, let etag, theirs != etag { return "another ETag (\(theirs), not \(etag))" }
        if theirs == nil || etag == nil, let theirDate, let lastModified, theirDate != lastModified {
            return "another Last-Modified (\(theirDate), not \(lastModified))"
        }
        return nil
    }

    /// Both sides carry the same strong ETag: the server vouches that this is the same file.
    func sameStrongETag(_ theirs: String?) -> Bool {
        guard let theirs, let etag, !etag.hasPrefix("W/") else { return false }
        return theirs == etag
    }
}
