/// The coarse kind of a file, used for the `fileType` sort and the type mark on each row.
public enum FileType: String, Sendable, CaseIterable, Codable {
    case image = "Image"
    case audio = "Audio"
    case video = "Video"
    case document = "Document"
    case archive = "Archive"
    case other = "Other"

    /// Classifies by extension first (what the user sees), then by MIME type.
    public static func classify(fileName: String, mimeType: String? = nil) -> FileType {
        let lower = fileName.lowercased()
        if let dot = lower.lastIndex(of: "."), dot != lower.startIndex {
            let ext = String(lower[lower.index(after: dot)...])
            if let type = byExtension[ext] { return type }
        }
        if let mime = mimeType?.lowercased() {
            if mime.hasPrefix("image/") { return .image }
            if mime.hasPrefix("audio/") { return .audio }
            if mime.hasPrefix("video/") { return .video }
            if mime.hasPrefix("text/") || mime.contains("pdf") || mime.contains("document") || mime.contains("msword") { return .document }
            if mime.contains("zip") || mime.contains("tar") || mime.contains("compressed") || mime.contains("x-xz") || mime.contains("gzip") { return .archive }
        }
        return .other
    }

    private static let byExtension: [String: FileType] = {
        var map: [String: FileType] = [:]
        for e in ["jpg", "jpeg", "png", "gif", "bmp", "webp", "svg", "tif", "tiff", "heic", "ico"] { map[e] = .image }
        for e in ["mp3", "flac", "wav", "ogg", "oga", "m4a", "aac", "opus", "wma"] { map[e] = .audio }
        for e in ["mp4", "mkv", "avi", "mov", "webm", "m4v", "wmv", "flv", "mpg", "mpeg"] { map[e] = .video }
        for e in ["pdf", "txt", "md", "doc", "docx", "odt", "rtf", "epub", "xls", "xlsx", "ppt", "pptx", "csv", "html", "htm"] { map[e] = .document }
        for e in ["zip", "tar", "gz", "tgz", "bz2", "xz", "7z", "rar", "zst", "iso", "deb", "rpm", "dmg"] { map[e] = .archive }
        return map
    }()

    /// One character for narrow screens.
    public var mark: Character {
        switch self {
        case .image: return "I"
        case .audio: return "A"
        case .video: return "V"
        case .document: return "D"
        case .archive: return "Z"
        case .other: return "-"
        }
    }
}
