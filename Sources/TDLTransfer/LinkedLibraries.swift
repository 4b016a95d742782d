import CCurl

/// The libcurl and TLS library built into tdl (Package.swift links them in): Debian's updates
/// of either reach tdl only when it is built again, so `tdl --version` names them. Asked only
/// then: libcurl takes about 45 µs to answer, which every other command would pay.
public enum LinkedLibraries {
    public static var description: String {
        guard let info = curl_version_info(CURLVERSION_ELEVENTH)?.pointee else { return "libcurl" }
        let tls = info.ssl_version.map { " with " + String(cString: $0) } ?? ""
        return "libcurl " + String(cString: info.version) + tls
    }
}
