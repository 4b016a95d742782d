/// Folders by kind of file: a download given no folder goes to its category's folder, once
/// that category has one (`category.video.dir=~/Videos` in the config file). The default table
/// names the usual extensions and no folder, so nothing changes until a folder is set.
public struct Categories: Hashable, Sendable {
    public struct Category: Hashable, Sendable {
        public let name: String
        /// Lowercased, without dots.
        public var extensions: [String]
        /// Absolute; nil: downloads of this kind go where others go.
        public var directory: String?

        public init(name: String, extensions: [String], directory: String? = nil) {
            self.name = name
            self.extensions = extensions.map { $0.lowercased().trimmingWhitespaceAndDots() }.filter { !$0.isEmpty }
            self.directory = directory
        }
    }

    /// In the order they are looked at: an extension two categories name belongs to the first.
    public private(set) var all: [Category]

    public init(_ categories: [Category]) { all = categories }

    public static let defaults = Categories([
        Category(name: "video", extensions: ["mp4", "mkv", "avi", "mov", "webm", "m4v", "wmv", "flv", "mpg", "mpeg"]),
        Category(name: "music", extensions: ["mp3", "flac", "wav", "ogg", "oga", "m4a", "aac", "opus", "wma"]),
        Category(name: "archives", extensions: ["zip", "tar", "gz", "tgz", "bz2", "xz", "7z", "rar", "zst", "iso"]),
        Category(name: "documents", extensions: ["pdf", "txt", "md", "doc", "docx", "odt", "rtf", "epub", "xls", "xlsx", "ppt", "pptx", "csv"]),
        Category(name: "programs", extensions: ["deb", "rpm", "appimage", "exe", "msi", "dmg", "apk", "run", "flatpak"]),
        Category(name: "images", extensions: ["jpg", "jpeg", "png", "gif", "bmp", "webp", "svg", "tif", "tiff", "heic", "ico"]),
    ])

    public subscript(name: String) -> Category? { all.first { $0.name == name } }

    /// Sets a category's extensions, adding the category when it is new.
    public mutating func setExtensions(_ extensions: [String], of name: String) {
        update(name) { $0 = Category(name: name, extensions: extensions, directory: $0.directory) }
    }

    public mutating func setDirectory(_ directory: String?, of name: String) {
        update(name) { $0.directory = directory }
    }

    private mutating func update(_ name: String, _ change: (inout Category) -> Void) {
        if let index = all.firstIndex(where: { $0.name == name }) {
            change(&all[index])
        } else {
            var category = Category(name: name, extensions: [])
            change(&category)
            all.append(category)
        }
    }

    /// The category of a file name by its last extension ("a.tar.gz" is "gz"), or nil.
    public func category(ofFileName name: String) -> Category? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        guard !ext.isEmpty else { return nil }
        return all.first { $0.extensions.contains(ext) }
    }

    /// Where a download of this file name goes when nothing else names a folder, or nil.
    public func directory(forFileName name: String) -> String? {
        category(ofFileName: name)?.directory
    }
}

private extension String {
    func trimmingWhitespaceAndDots() -> String {
        var s = Substring(self)
        while let first = s.first, first.isWhitespace || first == "." { s = s.dropFirst() }
        while let last = s.last, last.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
