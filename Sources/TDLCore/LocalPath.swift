import Foundation

/// A path a person typed, made absolute (`~` expanded, relative to the working folder): the
/// tdl that carries a request out may have another working folder.
public enum LocalPath {
    public static func absolute(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return (expanded as NSString).standardizingPath }
        return ((FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(expanded) as NSString).standardizingPath
    }
}
