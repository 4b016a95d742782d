import CCurl

/// libcurl is opened when a command transfers, not linked (see Sources/CCurl/libcurl.c): the
/// commands that transfer start loading it before `main`, the others never load it.
public enum Libcurl {
    /// Waits for the load; nil when libcurl is open, else why it cannot be. Without this
    /// check, the first call into libcurl would end tdl with that message and status 69.
    public static var loadFailure: String? {
        tdl_curl_load_failure().map { String(cString: $0) }
    }

    /// The exit status when libcurl cannot be opened (EX_UNAVAILABLE).
    public static let unavailableStatus = Int32(TDL_NO_LIBCURL)
}
