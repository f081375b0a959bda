import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

/// What a run reads, which nothing it writes may be: scripts, plugins,
/// replayed traces, and every file under the --targets directories.
struct RunInputs {
    var files: [(what: String, path: String)] = []
    var directories: [(what: String, path: String)] = []

    init(load: LoadOptions, files: [(what: String, path: String)]) {
        self.files = files + load.plugins.map { ("--plugin \($0)", $0) }
        directories = load.targetDirectories.map { ("--targets \($0)", $0) }
    }
}

extension PathCheck {
    /// Files the run writes (`outputs`: option and path), checked before
    /// anything runs: each a regular file or one to be made (a FIFO would
    /// block, a device cannot hold a report), in a directory that exists;
    /// no two the same file; none the same file as an input (a script, a
    /// plugin, a trace, a file under a --targets directory: a symlink or a
    /// hard link to one is that file) or as where standard output or error
    /// go; and none a new .lua file inside a --targets directory, which the
    /// run would find as a target.
    static func outputs(_ outputs: [(option: String, path: String)], inputs: RunInputs) throws {
        var taken: [(what: String, file: FileIdentity)] = []
        for (what, path) in inputs.files {
            if let file = FileIdentity(path: path) { taken.append((what, file)) }
        }
        var targetDirectories: [(what: String, directory: FileIdentity)] = []
        for (what, path) in inputs.directories {
            TargetTree.walk(path) { file, isDirectory in
                if isDirectory { targetDirectories.append((what, file)) } else { taken.append(("a file under \(what)", file)) }
            }
        }
        for (what, fd) in [("standard output", STDOUT_FILENO), ("standard error", STDERR_FILENO)] {
            var info = stat()
            if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG { taken.append((what, FileIdentity(info))) }
        }
        var made: [(what: String, directory: FileIdentity, name: [UInt8])] = []
        for (option, path) in outputs {
            let what = "\(option) \(path)"
            var info = stat()
            if stat(path, &info) == 0 {
                guard (info.st_mode & S_IFMT) == S_IFREG else {
                    throw refusal("\(what): not a regular file (a report is written into a file)")
                }
                let file = FileIdentity(info)
                if let other = taken.first(where: { $0.file == file }) {
                    throw refusal("\(what): the same file as \(other.what)")
                }
                taken.append((what, file))
                continue
            }
            // Not there yet: its directory must be; it is named by that directory and its name.
            let slash = path.lastIndex(of: "/")
            let directoryPath = slash.map { String(path[...$0]) } ?? "."
            let name = Array((slash.map { String(path[path.index(after: $0)...]) } ?? path).utf8)
            guard stat(directoryPath, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                throw refusal("\(what): the directory \(directoryPath) is not there")
            }
            let directory = FileIdentity(info)
            if let other = made.first(where: { $0.directory == directory && $0.name == name }) {
                throw refusal("\(what): the same file as \(other.what)")
            }
            if name.count >= 4 && name.suffix(4) == Array(".lua".utf8),
               let tree = targetDirectories.first(where: { $0.directory == directory }) {
                throw refusal("\(what): a .lua file in \(tree.what), which the run would read as a target")
            }
            made.append((what, directory, name))
        }
    }

    /// A usage error naming a path, shown with control characters escaped.
    static func refusal(_ message: String) -> ValidationError {
        ValidationError(visible(message))
    }
}

/// A file as the kernel knows it: what every name of it (a symlink, a hard
/// link) leads to.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// The file `path` leads to (symlinks followed), or nil.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }
}

/// The files and directories under a --targets directory, found the way
/// the run finds target files (symlinks to files followed, to directories
/// not: a tree cannot loop), to a bound: a tree past it is walked that far.
enum TargetTree {
    static let entryLimit = 100_000
    static let depthLimit = 16

    /// Calls `each` with every regular file and directory under `root`, and
    /// `root` itself. Paths are bytes (a name need not be UTF-8).
    static func walk(_ root: String, _ each: (FileIdentity, _ isDirectory: Bool) -> Void) {
        guard let top = FileIdentity(path: root) else { return }
        each(top, true)
        var pending: [(path: [CChar], depth: Int)] = [(Array(root.utf8CString.dropLast()), 0)]
        var seen = 0
        while let (directory, depth) = pending.popLast() {
            guard let listing = opendir(directory + [0]) else { continue }
            defer { closedir(listing) }
            while let entry = readdir(listing), seen < entryLimit {
                // up to its NUL only: past it the buffer is not set
                let name = withUnsafePointer(to: &entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) {
                        Array(UnsafeBufferPointer(start: $0, count: strlen($0)))
                    }
                }
                if name == [0x2E] || name == [0x2E, 0x2E] { continue } // . and ..
                seen += 1
                let path = directory + [0x2F] + name
                var info = stat(), link = stat()
                guard stat(path + [0], &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFREG:
                    each(FileIdentity(info), false)
                case S_IFDIR where lstat(path + [0], &link) == 0 && (link.st_mode & S_IFMT) == S_IFDIR && depth < depthLimit:
                    each(FileIdentity(info), true)
                    pending.append((path, depth + 1))
                default:
                    break
                }
            }
        }
    }
}
