/// A Metalink's URLs are the document's choice, as a redirect's target is the server's: the
/// user's headers, Referer and cookie file go only where they would go on a redirect, the
/// document's own origin (scheme, host and port).
extension Metalink {
    /// `requests` with the user's headers, Referer and cookie file kept only for a file whose
    /// every URL is on the origin of the document at `location`; a document read from disk
    /// has no origin, so none keep them. The note says how many files lost them.
    public static func keepingUserData(_ requests: [DownloadRequest], documentAt location: String) -> (requests: [DownloadRequest], note: String?) {
        let origin = RequestHeader.origin(of: location).flatMap { $0.hasPrefix("file://") ? nil : $0 }
        var kept = requests
        var dropped: [String] = []
        for (i, request) in requests.enumerated() where request.options.carriesUserData {
            let urls = [request.url] + (request.options.mirrors ?? [])
            if let origin, urls.allSatisfy({ RequestHeader.origin(of: $0) == origin }) { continue }
            kept[i].options.headers = nil
            kept[i].options.referer = nil
            kept[i].options.cookieFile = nil
            dropped.append(request.options.fileName ?? request.url)
        }
        guard let first = dropped.first else { return (kept, nil) }
        let files = dropped.count == 1 ? first : "\(first) and \(dropped.count - 1) other file\(dropped.count == 2 ? "" : "s")"
        let why = origin == nil ? "a document read from disk chose its hosts" : "it is downloaded from another host than the document's"
        return (kept, "the headers, Referer and cookies given are not sent for \(files): \(why)")
    }
}

extension DownloadOptions {
    /// Whether these carry what the user sends only to hosts they chose.
    var carriesUserData: Bool {
        hasOriginBoundHeaders || cookieFile != nil
    }
}
