import Foundation

/// The real tdl with its wall clock moved ahead (Tests/Support/clock_shift.c, preloaded): a
/// test of what happens at a wall-clock minute puts tdl a few seconds before one instead of
/// waiting up to a minute for the next. Only the wall clock moves; tdl's waits and timeouts
/// run on the monotonic clock as they always do.
public enum ClockShift {
    /// The preload library, compiled once per test run by the toolchain's C compiler; nil
    /// when there is none (the caller then waits for a real minute).
    public static let library: String? = {
        let source = Processes.packageRoot + "/Tests/Support/clock_shift.c"
        let library = folder.file("clock_shift.so")
        for compiler in ["clang", "cc"].compactMap(Processes.which) {
            let made = try? Processes.run(compiler, ["-shared", "-fPIC", "-O1", "-o", library, source, "-ldl"], timeout: 60)
            if made?.status == 0 { return library }
        }
        return nil
    }()

    private static let folder = TemporaryDirectory("tdl-clock-shift")

    /// The environment that moves a program's wall clock `seconds` ahead (whole milliseconds).
    public static func environment(ahead seconds: Double) -> [String: String]? {
        guard let library else { return nil }
        return ["LD_PRELOAD": library, "CLOCK_SHIFT_MS": String(Int((seconds * 1000).rounded()))]
    }
}
