import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

/// The scripts a run is given: files, and directories of them
/// (`switchboard run tests/`).
enum ScriptFiles {
    /// Each argument a readable file or directory (a usage error otherwise).
    static func check(_ arguments: [String]) throws {
        for path in arguments {
            var info = stat()
            if stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
                try PathCheck.directory(path, option: "the directory")
            } else {
                try PathCheck.readableFile(path, what: "the script \(path)")
            }
        }
    }

    /// The scripts, each directory replaced by the scenario files inside
    /// it, in a stable order: its entries sorted by their bytes, each
    /// subdirectory's files where its name sorts. A scenario file is a
    /// regular file (or a symlink to one) named *.lua, not hidden, not a
    /// Lua target (Target_*.lua, found by name, never run as a script); a
    /// subdirectory is walked unless it is hidden, a symlink, or a
    /// --targets directory (`skipping`), to 16 levels and 100,000 entries:
    /// a walk that reaches either limit stops the run before any script
    /// runs (exit 64), never runs a part of the tree quietly.
    /// A name that is not UTF-8 is left out, with a message.
    static func expand(_ arguments: [String], skipping targets: [String]) throws -> [String] {
        let skipped = targets.compactMap { FileIdentity(path: $0) }
        var scripts: [String] = []
        for path in arguments {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                scripts.append(path)
                continue
            }
            var root = path
            while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
            var seen = 0, tooBig = false
            walk(root, depth: 0, skipping: skipped, seen: &seen, tooBig: &tooBig, into: &scripts)
            if tooBig {
                complain("\(path): more than \(entryLimit) entries, or directories more than \(depthLimit) levels deep: the walk "
                         + "stopped there, so no script runs; give its subdirectories, or the scripts themselves")
                throw ExitCode(64)
            }
        }
        return scripts
    }

    static let entryLimit = 100_000
    static let depthLimit = 16

    private static func walk(_ directory: String, depth: Int, skipping: [FileIdentity], seen: inout Int,
                             tooBig: inout Bool, into scripts: inout [String]) {
        guard let listing = opendir(directory) else {
            complain("\(directory): \(String(cString: strerror(errno))): its scenarios are not run")
            return
        }
        var names: [[UInt8]] = []
        while let entry = readdir(listing) {
            // up to its NUL only: past it the buffer is not set
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: UInt8.self, capacity: Int(NAME_MAX) + 1) {
                    Array(UnsafeBufferPointer(start: $0, count: strlen(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))))
                }
            }
            if name.first == 0x2E { continue } // hidden, . and ..
            seen += 1
            guard seen <= entryLimit else { tooBig = true; break }
            names.append(name)
        }
        closedir(listing)
        names.sort { $0.lexicographicallyPrecedes($1) }
        let prefix = directory == "/" ? "/" : directory + "/"
        for name in names {
            guard let text = String(validating: name, as: UTF8.self) else {
                complain("\(prefix)\(String(decoding: name, as: UTF8.self)): its name is not UTF-8: not run")
                continue
            }
            let path = prefix + text
            var info = stat(), link = stat()
            guard stat(path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFREG where name.count > 4 && name.suffix(4).elementsEqual(".lua".utf8)
                && !name.starts(with: "Target_".utf8):
                scripts.append(path)
            case S_IFDIR where lstat(path, &link) == 0 && (link.st_mode & S_IFMT) == S_IFDIR
                && !skipping.contains(FileIdentity(info)):
                guard depth < depthLimit else { tooBig = true; return }
                walk(path, depth: depth + 1, skipping: skipping, seen: &seen, tooBig: &tooBig, into: &scripts)
                if tooBig { return }
            default:
                break
            }
        }
    }
}
