import Foundation

/// Names from servers and URLs are untrusted: this turns them into one safe file name.
public enum FileNameSanitizer {
    /// 255 bytes is the file-system limit; the ".part" beside the target needs five of them.
    public static let maxBytes = 250

    /// No path, no control characters, no leading dots, at most 250 bytes (cut on a character
    /// boundary, keeping the extension). nil when nothing usable is left.
    public static func sanitize(_ raw: String) -> String? {
        if isAlreadySafe(raw) { return raw }
        // Only the last path component counts, whichever slash the server used.
        let lastPart = raw.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var scalars = String.UnicodeScalarView()
        for scalar in lastPart.unicodeScalars {
            // What the terminal sanitizer would show as "?" is dropped from a name altogether.
            if TerminalText.isUnsafe(scalar) { continue }
            scalars.append(scalar)
        }
        var name = String(String(scalars).trimmingWhitespace())
        while name.hasPrefix(".") { name.removeFirst() }
        name = String(name.trimmingWhitespace())
        if name.isEmpty { return nil }
        if name.utf8.count > maxBytes {
            let ext = FileName.fullExtension(name)
            let keepExt = ext.utf8.count < 40 ? ext : ""
            var stem = String(name.dropLast(keepExt.count))
            while stem.utf8.count + keepExt.utf8.count > maxBytes { stem.removeLast() }
            name = stem + keepExt
        }
        return name
    }

    /// Printable ASCII without slashes, not starting with a dot or a space nor ending with a
    /// space, short enough: what nearly every name is, and what `sanitize` would leave as it is.
    static func isAlreadySafe(_ name: String) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, let last = bytes.last, bytes.count <= maxBytes,
              first != UInt8(ascii: "."), first != UInt8(ascii: " "), last != UInt8(ascii: " ") else { return false }
        return bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "\\") }
    }

    /// "name (n).ext" for the n-th alternative, keeping multi-part extensions whole.
    public static func numbered(_ name: String, _ n: Int) -> String {
        let ext = FileName.fullExtension(name)
        var stem = String(name.dropLast(ext.count))
        let suffix = " (\(n))"
        while stem.utf8.count + suffix.utf8.count + ext.utf8.count > maxBytes, !stem.isEmpty { stem.removeLast() }
        return stem + suffix + ext
    }
}
