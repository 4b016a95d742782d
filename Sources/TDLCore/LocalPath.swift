import Foundation

/// A path a person typed, made absolute (`~` expanded, relative to the working folder): the
/// tdl that carries a request out may have another working folder.
public enum LocalPath {
    public static func absolute(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return (expanded as NSString).standardizingPath }
        return ((FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(expanded) as NSString).standardizingPath
    }

    /// The name at the end of a path tdl made (a folder and a name, no trailing "/"): the
    /// bytes after the last "/". Bytes, not characters: a name that begins with a combining
    /// mark makes one character of it and the "/" before it.
    public static func lastComponent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(decoding: path.utf8[path.utf8.index(after: slash)...], as: UTF8.self)
    }

    /// The folder a path names its last component in ("/a/b/" and "/a/b" give "/a"), nil for
    /// "/" and for a path of one component. Bytes, as `lastComponent`.
    public static func parent(of path: String) -> String? {
        var bytes = Array(path.utf8)
        while bytes.count > 1 && bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        var end = slash
        while end > 0 && bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        if end == 0 { return bytes.count > 1 ? "/" : nil }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}
