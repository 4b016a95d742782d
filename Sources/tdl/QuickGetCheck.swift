import ArgumentParser

/// `tdl debug quick-get ARGUMENTS…`: whether `QuickGet` reads the arguments of a `tdl …` as
/// ArgumentParser does. Prints `quick` (the same command), `parser` (left to ArgumentParser),
/// or both readings and exits 1 when they differ.
struct QuickGetCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quick-get",
        abstract: "Compare tdl get's quick reading of ARGUMENTS with ArgumentParser's.",
        shouldDisplay: false)

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws {
        guard let quick = QuickGet.command(arguments) else {
            print("parser")
            return
        }
        let parsed: String
        do {
            parsed = Self.dumped(try TDLCommand.parseAsRoot(arguments))
        } catch {
            parsed = "error: \(TDLCommand.fullMessage(for: error))"
        }
        let mine = Self.dumped(quick)
        if mine == parsed {
            print("quick")
            return
        }
        print("quick:\n\(mine)\nArgumentParser:\n\(parsed)")
        throw ExitCode(1)
    }

    /// Every stored value, the option groups' included (`dump` reads them by reflection).
    static func dumped(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
