/// One header line of an answer, read from curl's bytes. Every header of every answer passes
/// here: a line of ASCII (all of them, in practice) is split and lowercased on its bytes,
/// without the String and Unicode work the general path does (`Connection.receiveHeader`).
enum HeaderLine: Equatable {
    /// A status line ("HTTP/1.1 200 OK"): its code, 0 when there is none.
    case status(Int)
    /// "Name: value": the name lowercased, the value without white space at its ends.
    case field(name: String, value: String)
    /// Anything else (the empty line that ends the headers).
    case other

    /// The line, or nil when it is not all ASCII (the general path reads it then).
    static func ascii(_ bytes: UnsafeRawBufferPointer) -> HeaderLine? {
        var start = 0, end = bytes.count
        for byte in bytes where byte >= 0x80 { return nil }
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        if end - start >= 5, bytes[start] == 0x48, bytes[start + 1] == 0x54, bytes[start + 2] == 0x54,
           bytes[start + 3] == 0x50, bytes[start + 4] == 0x2F {  // "HTTP/"
            return .status(statusCode(bytes, start, end))
        }
        guard let colon = (start ..< end).first(where: { bytes[$0] == 0x3A }) else { return .other }
        let name = String(unsafeUninitializedCapacity: colon - start) { out in
            for i in start ..< colon {
                let byte = bytes[i]
                out[i - start] = (0x41 ... 0x5A).contains(byte) ? byte + 0x20 : byte
            }
            return colon - start
        }
        var valueStart = colon + 1
        while valueStart < end, isSpace(bytes[valueStart]) { valueStart += 1 }
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[valueStart ..< end]), as: UTF8.self)
        return .field(name: name, value: value)
    }

    /// The second of the line's words split at spaces (as `split(separator: " ")` does), as a number.
    private static func statusCode(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Int {
        var i = start
        while i < end, bytes[i] != 0x20 { i += 1 }
        while i < end, bytes[i] == 0x20 { i += 1 }
        var j = i
        while j < end, bytes[j] != 0x20 { j += 1 }
        guard j > i else { return 0 }
        return Int(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[i ..< j]), as: UTF8.self)) ?? 0
    }

    /// Tab, line feed, vertical tab, form feed, carriage return, space (`trimmingWhitespace`'s ASCII).
    private static func isSpace(_ byte: UInt8) -> Bool {
        (0x09 ... 0x0D).contains(byte) || byte == 0x20
    }
}
