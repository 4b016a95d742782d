#if canImport(Glibc)
import Glibc
#endif

/// One environment variable, read when asked: `ProcessInfo.processInfo.environment` makes a
/// dictionary of every variable on each call, several times in each start.
public enum EnvironmentVariable {
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
