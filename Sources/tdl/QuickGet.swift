/// `tdl get URL…` with only `-o NAME`, `-d DIR`, `-q`, `--home DIR`, `--session NAME`,
/// `-j N` and `-i FILE`, read without ArgumentParser: its reflection over get's option groups, its check for
/// `--generate-completion-script` and the runtime's conformance lookups on the way are a
/// large part of a run that downloads one small file (docs/measurements.md).
///
/// Every other form, and any of these whose checks do not pass, goes to ArgumentParser, which
/// gives the command, the error or the help it always gave. `tdl debug quick-get` compares
/// the two readings (`QuickGetTests`): an option added to get must be set here too.
enum QuickGet {
    /// The command ArgumentParser would make of `arguments`, or nil when it should read them.
    static func command(_ arguments: [String]) -> GetCommand? {
        guard arguments.first == "get" else { return nil }
        var home: String?, session: String?, dir: String?, output: String?, quiet = false
        var jobs: Int?, inputFile: String?
        var urls: [String] = []
        var rest = arguments.dropFirst()
        while let word = rest.popFirst() {
            // A value of its own may be an option's, a `-`, or `--`: ArgumentParser decides.
            if !word.hasPrefix("-") {
                if word == "help" { return nil }
                urls.append(word)
                continue
            }
            if word == "-q" {
                if quiet { return nil }
                quiet = true
                continue
            }
            guard let value = rest.popFirst(), !value.hasPrefix("-") else { return nil }
            switch word {
            case "--home" where home == nil: home = value
            case "--session" where session == nil: session = value
            case "-d" where dir == nil, "--dir" where dir == nil: dir = value
            case "-o" where output == nil: output = value
            case "-i" where inputFile == nil: inputFile = value
            case "-j" where jobs == nil:
                // ArgumentParser's reading of an Int; what it refuses, it says in its words.
                guard let n = Int(value) else { return nil }
                jobs = n
            default: return nil
            }
        }
        var command = GetCommand()
        command.global = {
            var global = GlobalOptions()
            global.home = home
            global.session = session ?? "default"
            return global
        }()
        command.folder = {
            var folder = FolderOption()
            folder.dir = dir
            return folder
        }()
        command.hookOptions = {
            var hooks = HookOptions()
            hooks.onComplete = nil
            hooks.onError = nil
            return hooks
        }()
        command.schedule = {
            var schedule = ScheduleOptions()
            schedule.rateSchedule = []
            return schedule
        }()
        command.launch = {
            var launch = LaunchOptions()
            launch.interrupted = nil
            return launch
        }()
        command.transfer = {
            var transfer = TransferOptions()
            transfer.insecure = false
            transfer.cacert = nil
            transfer.maxConnectionsPerHost = nil
            transfer.lowestSpeedLimit = nil
            return transfer
        }()
        command.request = {
            var request = RequestOptions()
            request.headers = []
            request.userAgent = nil
            request.referer = nil
            request.loadCookies = nil
            request.saveCookies = nil
            request.mirror = []
            request.curl = nil
            request.queue = nil
            return request
        }()
        command.urls = urls
        command.inputFile = inputFile
        command.output = output
        command.jobs = jobs
        command.connections = 8
        command.limitRate = nil
        command.maxDownloadLimit = nil
        command.checksum = nil
        command.checksumFile = nil
        command.checksumURL = nil
        command.all = false
        command.quiet = quiet
        // The checks ArgumentParser runs after reading; what fails them it says in its words.
        do {
            try command.global.validate()
            try command.schedule.validate()
            try command.transfer.validate()
            try command.request.validate()
            try command.validate()
        } catch {
            return nil
        }
        return command
    }
}
