import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

/// Checks of the paths given on the command line, made before anything runs:
/// a wrong path is a usage error (exit 64) that names the option and says what
/// is wrong, once, instead of a failure of every script that needs it.
enum PathCheck {
    /// A usage error naming a path, which may hold control characters (a
    /// script found by a glob): shown as escapes.
    private static func refusal(_ message: String) -> ValidationError {
        ValidationError(visible(message))
    }

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

    /// Files the run writes (`outputs`: option and path): each a regular file
    /// or one to be made (a FIFO would block, a device cannot hold a report),
    /// in a directory that exists, and no two the same file, nor one of the
    /// `scripts`, nor where standard output or error go.
    static func outputs(_ outputs: [(option: String, path: String)], scripts: [String]) throws {
        var taken: [(what: String, file: String)] = []
        func identity(_ info: stat) -> String { "\(info.st_dev):\(info.st_ino)" }
        for script in scripts {
            var info = stat()
            if stat(script, &info) == 0 { taken.append(("the script \(script)", identity(info))) }
        }
        for (what, fd) in [("standard output", STDOUT_FILENO), ("standard error", STDERR_FILENO)] {
            var info = stat()
            if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG { taken.append((what, identity(info))) }
        }
        for (option, path) in outputs {
            let what = "\(option) \(path)"
            var info = stat()
            let file: String
            if stat(path, &info) == 0 {
                guard (info.st_mode & S_IFMT) == S_IFREG else {
                    throw refusal("\(what): not a regular file (a report is written into a file)")
                }
                file = identity(info)
            } else {
                // Not there yet: its directory must be; it is named by that directory's identity.
                let slash = path.lastIndex(of: "/")
                let directory = slash.map { String(path[...$0]) } ?? "."
                let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
                guard stat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                    throw refusal("\(what): the directory \(directory) is not there")
                }
                file = identity(info) + "/" + name
            }
            if let other = taken.first(where: { $0.file == file }) {
                throw refusal("\(what): the same file as \(other.what)")
            }
            taken.append((what, file))
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
