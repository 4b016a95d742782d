import Foundation

/// Decides whether a string is a URL tdl can download, and why not.
public enum URLCheck {
    public static let supportedSchemes: Set<String> = ["http", "https", "ftp", "ftps", "file"]

    /// nil when acceptable, else the reason in words.
    public static func problem(with text: String) -> String? {
        if text.isEmpty { return "empty URL" }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == " " }) {
            return "contains spaces or control characters"
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            return "not a URL"
        }
        guard supportedSchemes.contains(scheme) else { return "unsupported scheme \"\(scheme)\"" }
        if scheme == "file" {
            return components.path.isEmpty ? "file URL without a path" : nil
        }
        guard let host = components.host, !host.isEmpty else { return "no host" }
        return nil
    }

    /// A file name guessed from the URL's last path segment (percent-decoded); "download" when none.
    public static func suggestedFileName(for text: String) -> String {
        let path = URLComponents(string: text)?.path ?? ""
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        let decoded = last.removingPercentEncoding ?? last
        return FileNameSanitizer.sanitize(decoded) ?? "download"
    }
}
