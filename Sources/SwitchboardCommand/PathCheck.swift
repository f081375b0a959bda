import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

/// Checks of the paths given on the command line, made before anything runs:
/// a wrong path is a usage error (exit 64) that names the option and says what
/// is wrong, once, instead of a failure of every script that needs it.
enum PathCheck {

    /// A regular file that can be read (never opened here unless regular: a
    /// FIFO would block).
    static func readableFile(_ path: String, what: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { throw refusal("\(what): \(String(cString: strerror(errno)))") }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            let kind = (info.st_mode & S_IFMT) == S_IFDIR ? "a directory" : "not a regular file"
            throw refusal("\(what): \(kind), expected a file")
        }
        guard access(path, R_OK) == 0 else { throw refusal("\(what): \(String(cString: strerror(errno)))") }
    }

    /// A readable regular file that starts as a shared object does (ELF).
    static func sharedObject(_ path: String, option: String) throws {
        let what = "\(option) \(path)"
        try readableFile(path, what: what)
        var magic = [UInt8](repeating: 0, count: 4)
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw refusal("\(what): \(String(cString: strerror(errno)))") }
        let n = read(fd, &magic, 4)
        close(fd)
        guard n == 4, magic == [0x7F, 0x45, 0x4C, 0x46] else {
            throw refusal("\(what): not a shared object (a C plugin is built with cc -shared -fPIC)")
        }
    }

    /// A directory whose files can be listed and read.
    static func directory(_ path: String, option: String) throws {
        var info = stat()
        let what = "\(option) \(path)"
        guard stat(path, &info) == 0 else { throw refusal("\(what): \(String(cString: strerror(errno)))") }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw refusal("\(what): not a directory") }
        guard access(path, R_OK | X_OK) == 0 else { throw refusal("\(what): \(String(cString: strerror(errno)))") }
    }
}
