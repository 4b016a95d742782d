import Foundation
import TDLSession

extension InputFile {
    /// The file at `path`, or standard input for "-".
    static func read(_ path: String) throws -> InputFile {
        if path == "-" { return InputFile(bytes: Array(FileHandle.standardInput.readDataToEndOfFile())) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError.badArgument("cannot read the input file \(path)")
        }
        return InputFile(bytes: Array(data))
    }
}
