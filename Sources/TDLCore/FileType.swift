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
        if let packed = packedExtension(fileName), let type = byPackedExtension[packed] { return type }
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

    /// The extension's bytes lowercased and packed into an integer (nil when longer than 8 bytes
    /// or absent): a type sort classifies every task, and hashing an integer beats a string.
    static func packedExtension(_ fileName: String) -> UInt64? {
        var packed: UInt64 = 0
        var length = 0
        for byte in fileName.utf8.reversed() {
            if byte == UInt8(ascii: ".") {
                // A leading dot is a hidden file, not an extension.
                return length > 0 && fileName.utf8.count > length + 1 ? packed : nil
            }
            length += 1
            guard length <= 8 else { return nil }
            let lower = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
            packed |= UInt64(lower) << (8 * UInt64(length - 1))
        }
        return nil
    }

    private static let byPackedExtension: [UInt64: FileType] = {
        var map: [UInt64: FileType] = [:]
        for (ext, type) in byExtension { map[packedExtension("x." + ext)!] = type }
        return map
    }()

    /// Position in `allCases`: the section order of the type sort.
    var rank: Int {
        switch self {
        case .image: return 0
        case .audio: return 1
        case .video: return 2
        case .document: return 3
        case .archive: return 4
        case .other: return 5
        }
    }

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
