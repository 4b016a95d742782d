import Crypto
import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// Hashes a file in large reads with the algorithm a checksum names.
public enum FileDigest {
    /// The hex digest of the file at `path`; nil when it cannot be read.
    public static func hex(ofFile path: String, algorithm: Checksum.Algorithm) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return hex(of: fd, algorithm: algorithm)
    }

    static func hex(of fd: Int32, algorithm: Checksum.Algorithm) -> String? {
        switch algorithm {
        case .md5: return hash(fd, Insecure.MD5())
        case .sha1: return hash(fd, Insecure.SHA1())
        case .sha256: return hash(fd, SHA256())
        case .sha512: return hash(fd, SHA512())
        }
    }

    private static func hash<H: HashFunction>(_ fd: Int32, _ start: H) -> String? {
        var hasher = start
        let size = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        var offset: off_t = 0
        while true {
            let n = pread(fd, buffer, size, offset)
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(start: buffer, count: n))
            offset += off_t(n)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
