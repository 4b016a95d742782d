import Foundation
import TDLSession

/// The command line as the bytes it was given: Swift reads each argument as UTF-8 and puts
/// U+FFFD in place of bytes that are not, which would fetch another URL or write another
/// name than the one given. Such an argument is refused (exit 2), named by its position.
enum ArgumentBytes {
    /// The first argument that is not valid UTF-8, as "argument N (shown repaired)".
    static func firstInvalid() -> String? {
        for index in 1 ..< Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[index], String(validatingCString: raw) == nil else { continue }
            return "argument \(index) (\(ScreenSafe.clean(String(cString: raw))))"
        }
        return nil
    }
}
