@_spi(Faces) import Switchboard
import CSwitchboard

/// Sets the calling thread's last error and returns `status`, so a failing
/// export reads `return failure(SB_EINVAL, "...")`.
@inline(never)
func failure(_ status: sb_status, _ message: String) -> sb_status {
    setLastError(message)
    return status
}

func failure(_ error: SwitchboardError) -> sb_status {
    failure(sb_status(error), error.message)
}

func setLastError(_ message: String) {
    var message = message
    message.withUTF8 { bytes in
        bytes.withMemoryRebound(to: CChar.self) { sb__error_set($0.baseAddress, $0.count) }
    }
}

/// The calling thread's last error, as a Swift string.
var lastError: String { String(cString: sb_error_message()) }

extension sb_status {
    init(_ error: SwitchboardError) {
        self.init(UInt32(error.code.rawValue))
    }

    /// The highest status this library defines; actions returning anything
    /// above it are reported as SB_EACTION.
    static let highest = SB_ENOTFOUND
}

extension SwitchboardError {
    /// The error for a status a C function returned, with the thread's message.
    init(status: Int32) {
        let code = SwitchboardError.Code(rawValue: status) ?? .actionFailed
        self.init(code: code, message: lastError)
    }
}

/// The Swift string for a C name that must be non-empty, NUL-terminated
/// UTF-8; nil (with the reason in `problem`) otherwise.
func validName(_ name: UnsafePointer<CChar>?, _ what: String) -> Result<String, SwitchboardError> {
    guard let name else { return .failure(.invalidArgument("\(what) name is NULL")) }
    guard name.pointee != 0 else { return .failure(.invalidArgument("\(what) name is empty")) }
    guard let string = String(validatingCString: name) else {
        return .failure(.invalidArgument("\(what) name is not valid UTF-8"))
    }
    return .success(string)
}

/// Whether `bytes` are UTF-8. ASCII (nearly every name and key) is checked
/// eight bytes at a time before the full decoder is asked.
@inline(__always)
/// The length of a NUL-terminated string if it is valid UTF-8, else nil. One
/// pass for ASCII (keys nearly always are), instead of strlen then a check.
func validUTF8Length(_ cString: UnsafePointer<UInt8>) -> Int? {
    var i = 0
    var highBits: UInt8 = 0
    while cString[i] != 0 {
        highBits |= cString[i]
        i &+= 1
    }
    if highBits < 0x80 { return i }
    return isValidUTF8(UnsafeBufferPointer(start: cString, count: i)) ? i : nil
}

func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    var i = 0
    let count = bytes.count
    while i + 8 <= count {
        if UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
            return String(validating: bytes, as: UTF8.self) != nil
        }
        i += 8
    }
    while i < count {
        if base[i] >= 0x80 { return String(validating: bytes, as: UTF8.self) != nil }
        i += 1
    }
    return true
}
