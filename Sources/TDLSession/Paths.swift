import Foundation
import TDLCore

/// Where tdl keeps its session and puts downloads, from options, environment and XDG defaults.
public enum Paths {
    static var homeDirectory: String { EnvironmentVariable.value("HOME") ?? NSHomeDirectory() }

    /// `--home`, else `TDL_HOME`, else `$XDG_DATA_HOME/tdl`, else `~/.local/share/tdl`.
    public static func home(_ option: String?) -> String {
        if let option, !option.isEmpty { return absolute(option) }
        if let env = EnvironmentVariable.value("TDL_HOME"), !env.isEmpty { return absolute(env) }
        if let xdg = EnvironmentVariable.value("XDG_DATA_HOME"), !xdg.isEmpty { return (absolute(xdg) as NSString).appendingPathComponent("tdl") }
        return (homeDirectory as NSString).appendingPathComponent(".local/share/tdl")
    }

    /// `-d/--dir`, else `XDG_DOWNLOAD_DIR`, else `~/Downloads`.
    public static func downloads(_ option: String?) -> String {
        if let option, !option.isEmpty { return absolute(option) }
        if let xdg = EnvironmentVariable.value("XDG_DOWNLOAD_DIR"), !xdg.isEmpty { return absolute(xdg) }
        return (homeDirectory as NSString).appendingPathComponent("Downloads")
    }

    public static func absolute(_ path: String) -> String { LocalPath.absolute(path) }
}
