#if canImport(Glibc)
import Glibc
#endif

/// Writes whole lines to a file descriptor, at once (no buffering), so a
/// report is complete up to the last line even if the run is ended.
struct LineWriter {
    let descriptor: Int32

    func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return // a closed pipe: the reader is gone, nothing to tell it
                }
                offset += n
            }
        }
    }

    func line(_ text: String) { write(text + "\n") }
}

/// Messages for people, on standard error.
func complain(_ message: String) {
    LineWriter(descriptor: STDERR_FILENO).line("switchboard: " + message)
}

/// The `--trace` file: one JSON object per line, written as each call ends.
final class TraceFile {
    private let file: UnsafeMutablePointer<FILE>

    init(path: String) throws {
        guard let file = fopen(path, "w") else {
            throw CommandFailure("cannot write the trace file \(path): \(String(cString: strerror(errno)))")
        }
        self.file = file
    }

    func write(_ line: UnsafePointer<CChar>, _ length: Int) {
        fwrite(line, 1, length, file)
        fputc(0x0A, file)
        fflush(file)
    }

    deinit { fclose(file) }
}

/// A failure to report on standard error, with exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A string as a JSON (and YAML double-quoted) literal.
func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        // C0, DEL, C1, the line and paragraph separators and the BOM: YAML
        // readers refuse some of them raw.
        case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
            || scalar.value == 0x2028 || scalar.value == 0x2029 || scalar.value == 0xFEFF:
            let hex = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
