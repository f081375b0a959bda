#if canImport(Glibc)
import Glibc
#endif

/// A folder of its own in TMPDIR, removed with what it holds when released,
/// or when a signal ends the command (Interruption: it dies by the signal,
/// and nothing is released then).
final class TemporaryFolder {
    let path: String

    /// The folders not yet released (the command's main thread only).
    nonisolated(unsafe) private static var live: [String] = []

    static func removeAll() {
        live.forEach(remove)
        live = []
    }

    init() throws {
        let directory = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(directory)/switchboard-graph.XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw CommandFailure("cannot make a folder in \(directory): \(String(cString: strerror(errno)))")
        }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        Self.live.append(path)
    }

    deinit {
        Self.live.removeAll { $0.utf8.elementsEqual(path.utf8) }
        Self.remove(path)
    }

    /// What the run leaves here: its trace and its report (and their
    /// temporary names), no folders.
    private static func remove(_ path: String) {
        if let listing = opendir(path) {
            while let entry = readdir(listing) {
                let name = withUnsafePointer(to: &entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
                }
                if name != "." && name != ".." { unlink(path + "/" + name) }
            }
            closedir(listing)
        }
        rmdir(path)
    }
}
