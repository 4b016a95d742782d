import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The JSON-RPC secret tdl makes itself when the user gave none: 32 random bytes as hex, in
/// `<home>/rpc-secret`, readable by its owner only, made once and read on every later run.
///
/// The home may be a folder others can write (a shared `--home`): the file is opened without
/// following a symlink and checked on its descriptor (a regular file of ours, nobody else may
/// read it), and created whole under another name, then linked into place without replacing
/// anything, so a reader never sees half a secret and two tdl starting at once agree.
public enum RPCSecretFile {
    public static func path(home: String) -> String { (home as NSString).appendingPathComponent("rpc-secret") }

    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// The secret in the file, made first when there is none.
    public static func secret(home: String) throws -> (secret: String, created: Bool) {
        let path = path(home: home)
        if let secret = try read(path) { return (secret, false) }
        let fresh = random()
        let temporary = path + ".\(getpid()).new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Problem(description: "cannot create \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array((fresh + "\n").utf8)
        let written = write(fd, bytes, bytes.count)
        let synced = fsync(fd) == 0
        close(fd)
        defer { unlink(temporary) }
        guard written == bytes.count, synced else { throw Problem(description: "cannot write \(temporary)") }
        if link(temporary, path) == 0 { return (fresh, true) }
        // Another tdl made it meanwhile: theirs is the one.
        guard errno == EEXIST, let theirs = try read(path) else {
            throw Problem(description: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        return (theirs, false)
    }

    /// The file's secret, nil when there is no file; throws for a file that is not safe.
    static func read(_ path: String) throws -> String? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw Problem(description: "cannot read the JSON-RPC secret \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(), info.st_size < 4096 else {
            throw Problem(description: "\(path) is not a file of yours: remove it, tdl makes a new secret")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw Problem(description: "\(path) can be read by others: the secret is out; remove the file, tdl makes a new one")
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = Glibc.read(fd, &buffer, buffer.count)
        guard n >= 0 else { throw Problem(description: "cannot read \(path): \(String(cString: strerror(errno)))") }
        let secret = String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !secret.isEmpty else { throw Problem(description: "\(path) is empty: remove it, tdl makes a new secret") }
        return secret
    }

    /// 32 bytes from the kernel's random source (`SystemRandomNumberGenerator` is getrandom(2)
    /// on Linux: cryptographically secure).
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
    }
}
