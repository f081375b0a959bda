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

/// Messages for people, on standard error, on one line (they name scripts
/// and scenarios, which may hold anything).
func complain(_ message: String) {
    LineWriter(descriptor: STDERR_FILENO).line("switchboard: " + visible(message))
}

/// `text` with every control character a terminal acts on shown as an
/// escape, as a Lua string literal writes it: C0 but tab (newlines too) and
/// DEL as `\x1b`, C1 (U+0080...U+009F: CSI, NEL, OSC...) as `\u{9b}`. For
/// text that reaches a terminal or a line of a report: a scenario's output,
/// its name, a script's path. `keepingNewlines`: for a message of several
/// lines (an error with its traceback).
func visible(_ text: String, keepingNewlines: Bool = false) -> String {
    func shown(_ scalar: Unicode.Scalar) -> Bool { isControl(scalar) && !(keepingNewlines && scalar == "\n") }
    guard text.unicodeScalars.contains(where: shown) else { return text }
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        if shown(scalar) {
            out.append(contentsOf: escape(scalar).unicodeScalars)
        } else {
            out.append(scalar)
        }
    }
    return String(out)
}

/// JSON for a terminal: the library's encoder escapes C0 as JSON must; DEL
/// and C1, which JSON may carry as they are, become \u escapes too (the
/// same value). They can only be inside strings.
func terminalJSON(_ json: String) -> String {
    guard json.unicodeScalars.contains(where: { (0x7F...0x9F).contains($0.value) }) else { return json }
    var out = String.UnicodeScalarView()
    for scalar in json.unicodeScalars {
        if (0x7F...0x9F).contains(scalar.value) {
            out.append(contentsOf: ("\\u00" + String(scalar.value, radix: 16)).unicodeScalars)
        } else {
            out.append(scalar)
        }
    }
    return String(out)
}

/// C0 but tab, DEL, C1.
func isControl(_ scalar: Unicode.Scalar) -> Bool {
    (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
}

/// `\x1b` for C0 and DEL, `\u{85}` for C1 (a code point, not a byte).
private func escape(_ scalar: Unicode.Scalar) -> String {
    let hex = String(scalar.value, radix: 16)
    return scalar.value < 0x80 ? "\\x" + (hex.count < 2 ? "0" : "") + hex : "\\u{" + hex + "}"
}

/// The `--trace` file: one JSON object per line, written as each call ends
/// (an AtomicFile: in place when the run ends, or is stopped; empty until).
final class TraceFile {
    private let output: AtomicFile
    private let file: UnsafeMutablePointer<FILE>

    init(path: String) throws {
        try AtomicFile.write("", to: path) // no stale trace stays while the run goes on
        output = try AtomicFile(path: path, watchdog: true)
        guard let file = fdopen(dup(output.descriptor), "w") else {
            throw CommandFailure("cannot write the trace file \(visible(path)): \(String(cString: strerror(errno)))")
        }
        self.file = file
    }

    func write(_ line: UnsafePointer<CChar>, _ length: Int) {
        fwrite(line, 1, length, file)
        fputc(0x0A, file)
        fflush(file)
    }

    /// Puts the trace in place.
    func finish() throws {
        guard fflush(file) == 0, ferror(file) == 0 else {
            throw CommandFailure("cannot write the trace file \(visible(output.path)): \(String(cString: strerror(errno)))")
        }
        try output.publish()
    }

    deinit { fclose(file) }
}

/// A failure to report on standard error, with exit status 1.
/// (Its text may quote a target's message or a path: control characters
/// are shown as escapes.)
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = visible(description, keepingNewlines: true) }
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
