import Foundation

/// RFC 6266 file names: `filename*` (RFC 5987, UTF-8) first, then `filename`. The result is
/// still untrusted and goes through `FileNameSanitizer`.
public enum ContentDisposition {
    public static func fileName(from header: String) -> String? {
        let params = parameters(header)
        if let extended = params["filename*"], let decoded = decodeExtended(extended), !decoded.isEmpty {
            return decoded
        }
        if let plain = params["filename"], !plain.isEmpty {
            // Some servers percent-encode the plain form too.
            if plain.contains("%"), let decoded = plain.removingPercentEncoding { return decoded }
            return plain
        }
        return nil
    }

    /// Splits `attachment; a=b; c="d;e"` into lower-cased names and unquoted values.
    static func parameters(_ header: String) -> [String: String] {
        var result: [String: String] = [:]
        var chars = Array(header)
        chars.append(";")
        var i = chars.firstIndex(of: ";") ?? chars.count
        while i < chars.count {
            i += 1
            while i < chars.count, chars[i] == " " || chars[i] == "\t" { i += 1 }
            var name = ""
            while i < chars.count, chars[i] != "=", chars[i] != ";" { name.append(chars[i]); i += 1 }
            guard i < chars.count, chars[i] == "=" else { continue }
            i += 1
            var value = ""
            if i < chars.count, chars[i] == "\"" {
                i += 1
                while i < chars.count, chars[i] != "\"" {
                    if chars[i] == "\\", i + 1 < chars.count { i += 1 }
                    value.append(chars[i]); i += 1
                }
                while i < chars.count, chars[i] != ";" { i += 1 }
            } else {
                while i < chars.count, chars[i] != ";" { value.append(chars[i]); i += 1 }
                value = value.trimmingCharacters(in: .whitespaces)
            }
            let key = name.trimmingCharacters(in: .whitespaces).lowercased()
            if result[key] == nil { result[key] = value }
        }
        return result
    }

    /// `UTF-8''%E4%B8%8B.zip` → "下.zip"; ISO-8859-1 is accepted too.
    static func decodeExtended(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let charset = parts[0].lowercased()
        let encoded = String(parts[2])
        var bytes: [UInt8] = []
        var iterator = Array(encoded.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let h = iterator.next(), let l = iterator.next(),
               let value = UInt8(String(bytes: [h, l], encoding: .ascii) ?? "", radix: 16) {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        if charset == "utf-8" { return String(bytes: bytes, encoding: .utf8) }
        if charset == "iso-8859-1" { return String(bytes: bytes, encoding: .isoLatin1) }
        return nil
    }
}
