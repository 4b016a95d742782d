/// How a tdl command exits; a request carried out for another tdl answers with the same numbers.
public enum ExitStatus {
    public static let ok: Int32 = 0
    public static let downloadFailed: Int32 = 1
    public static let badInput: Int32 = 2
    public static let sessionInUse: Int32 = 3
    public static let badDirectory: Int32 = 4
    public static let session: Int32 = 5
    public static let interrupted: Int32 = 130
}
