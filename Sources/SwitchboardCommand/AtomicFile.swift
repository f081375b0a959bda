import SwitchboardRunner

#if canImport(Glibc)
import Glibc
#endif

/// A report file written under a temporary name beside its own
/// (`.NAME.XXXXXX`) and renamed into place when done (`publish`): a reader
/// never finds it half written, and a name that is a hard link to another
/// file is replaced, never written through. With `watchdog`, the watchdog
/// renames it itself if it must end the run (exit status 3): the caller
/// keeps the file whole until then. Released unpublished, it is removed.
final class AtomicFile {
    /// Where it goes: the path given, or the file a symlink there names.
    let path: String
    let working: String
    let descriptor: Int32
    private var slot: Int32 = -1
    private var published = false

    init(path given: String, watchdog: Bool = false) throws {
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let target = realpath(given, &resolved) != nil ? Self.string(resolved) : given
        let slash = target.lastIndex(of: "/")
        let directory = slash.map { String(target[...$0]) } ?? ""
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        var template = Array((directory + "." + String(name.utf8.prefix(200))! + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw CommandFailure("cannot write \(visible(given)): \(String(cString: strerror(errno)))")
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC) // scenarios' processes close it anyway (isolation.c)
        path = target
        working = Self.string(template)
        descriptor = fd
        let mask = umask(0) // as open(2) would make it: 0666 less the umask
        umask(mask)
        fchmod(fd, 0o666 & ~mask)
        if watchdog { slot = sbr_output_register(working, path) }
    }

    /// Renames it into place, its bytes on disk first.
    func publish() throws {
        guard !published else { return }
        guard fsync(descriptor) == 0 || errno == EINVAL, rename(working, path) == 0 else {
            throw CommandFailure("cannot write \(visible(path)): \(String(cString: strerror(errno)))")
        }
        published = true
        sbr_output_forget(slot)
    }

    /// Writes all of `bytes` at `offset`; false on an error.
    func put(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            done += n
        }
        return true
    }

    /// A whole file at once.
    static func write(_ text: String, to path: String) throws {
        let file = try AtomicFile(path: path)
        var text = text
        guard text.withUTF8({ file.put(UnsafeRawBufferPointer($0), at: 0) }) else {
            throw CommandFailure("cannot write \(visible(path)): \(String(cString: strerror(errno)))")
        }
        try file.publish()
    }

    private static func string(_ c: [CChar]) -> String {
        String(decoding: c.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        sbr_output_forget(slot)
        if !published { unlink(working) }
        close(descriptor)
    }
}
