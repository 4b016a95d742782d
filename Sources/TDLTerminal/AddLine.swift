import TDLCore

/// What the add prompt's line asks for: URLs separated by spaces, each followed by the
/// input file's `key=value` words for it (`URL out=name.iso dir=/tmp queue=night`), read by
/// `DownloadOption` as an input file's lines are.
enum AddLine {
    /// The downloads, or the one-line message of the first mistake (the input file's words).
    static func requests(_ words: [String], absolute: (String) -> String = LocalPath.absolute) -> Result<[DownloadRequest], Mistake> {
        var requests: [DownloadRequest] = []
        var afterOption = false
        for word in words {
            guard let (key, value) = option(in: word) else {
                // A value typed with a space in it (`out=My File.iso`): its rest is no URL.
                if afterOption && !word.contains("://") && !Metalink.isMetalinkName(word) {
                    return .failure(Mistake(text: "\(word) is not a URL; a value cannot hold spaces at the prompt: nothing added"))
                }
                afterOption = false
                requests.append(DownloadRequest(url: word))
                continue
            }
            afterOption = true
            guard !requests.isEmpty else { return .failure(Mistake(text: "\(key)=\(value) has no URL before it: nothing added")) }
            do {
                try DownloadOption.read(key, value, into: &requests[requests.count - 1].options, absolute: absolute)
            } catch {
                return .failure(Mistake(text: error.message(as: key)))
            }
        }
        return .success(requests)
    }

    struct Mistake: Error, Equatable {
        let text: String
    }

    /// `key=value` when the word is an option: a name of letters, digits and '-' before its
    /// first '=' (a URL's `?a=b` has its scheme's ':' or a '/' before it).
    private static func option(in word: String) -> (key: String, value: String)? {
        guard let equals = word.firstIndex(of: "=") else { return nil }
        let key = word[..<equals]
        guard let first = key.unicodeScalars.first, first.properties.isAlphabetic, first.isASCII,
              key.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }) else {
            return nil
        }
        return (String(key), String(word[word.index(after: equals)...]))
    }
}
