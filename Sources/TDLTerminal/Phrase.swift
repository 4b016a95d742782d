/// Words for counts in messages and questions: "paused 1 download", "moved 3 downloads".
enum Phrase {
    static func downloads(_ n: Int) -> String { n == 1 ? "1 download" : "\(n) downloads" }
}
