import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

/// A --trace file read a line at a time, for `switchboard replay` and
/// `switchboard graph`: opened once, without blocking, and checked by
/// descriptor (the name may have become a FIFO since it was checked); a line
/// past the limit is refused before it is read whole.
enum TraceLines {
    static let lineLimit = 16 << 20

    /// Calls `each` with every line that is not empty and its number (from
    /// 1); a file that cannot be read, or a line longer than the limit, is a
    /// usage error naming it.
    static func read(_ path: String, _ each: ([UInt8], Int) throws -> Void) throws {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        var info = stat()
        guard fd >= 0, fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
              fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0, let file = fdopen(fd, "r") else {
            let reason = fd < 0 ? String(cString: strerror(errno)) : "not a regular file"
            if fd >= 0 { close(fd) }
            throw ValidationError(visible("\(path): \(reason)"))
        }
        defer { fclose(file) }
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var number = 1
        func finish() throws {
            defer { line.removeAll(keepingCapacity: true); number += 1 }
            guard !line.isEmpty else { return }
            try each(line, number)
        }
        func checkLength() throws {
            if line.count > lineLimit {
                throw ValidationError(visible("\(path) line \(number): longer than \(lineLimit >> 20) MiB; not a trace line"))
            }
        }
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n == 0 { break }
            var start = 0
            for i in 0..<n where chunk[i] == 0x0A {
                line.append(contentsOf: chunk[start..<i])
                try checkLength()
                try finish()
                start = i + 1
            }
            line.append(contentsOf: chunk[start..<n])
            try checkLength()
        }
        if ferror(file) != 0 { throw ValidationError(visible("\(path): \(String(cString: strerror(errno)))")) }
        try finish()
    }
}
