#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading Swift sources and writing generated files, for the `switchboard`
/// command and the plugin's tool alike.
package enum SourceFiles {
    /// The `.swift` files at `paths`: a file as it is, a directory's files
    /// and its subdirectories' (in byte order, hidden entries left out).
    package static func swiftFiles(at paths: [String]) throws(WrapperError) -> [(path: String, text: String)] {
        var files: [String] = []
        for path in paths { try collect(path, into: &files) }
        return try files.map { path throws(WrapperError) in (path, try read(path)) }
    }

    private static func collect(_ path: String, into files: inout [String]) throws(WrapperError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw WrapperError("\(path): \(String(cString: strerror(errno)))") }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            guard info.st_mode & S_IFMT == S_IFREG else { throw WrapperError("\(path): not a regular file") }
            files.append(path)
            return
        }
        guard let dir = opendir(path) else { throw WrapperError("\(path): \(String(cString: strerror(errno)))") }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if !name.hasPrefix(".") { names.append(name) }
        }
        closedir(dir)
        for name in names.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let child = path.hasSuffix("/") ? path + name : path + "/" + name
            var childInfo = stat()
            guard stat(child, &childInfo) == 0 else { continue }
            if childInfo.st_mode & S_IFMT == S_IFDIR {
                try collect(child, into: &files)
            } else if name.hasSuffix(".swift"), childInfo.st_mode & S_IFMT == S_IFREG {
                files.append(child)
            }
        }
    }

    package static func read(_ path: String) throws(WrapperError) -> String {
        guard let file = fopen(path, "rb") else { throw WrapperError("\(path): \(String(cString: strerror(errno)))") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n == 0 { break }
            bytes += buffer[..<n]
        }
        guard ferror(file) == 0 else { throw WrapperError("\(path): cannot be read") }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// mkdir -p.
    package static func makeDirectories(_ path: String) throws(WrapperError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part + "/"
            guard mkdir(prefix, 0o755) == 0 || errno == EEXIST else {
                throw WrapperError("\(prefix): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Writes `text` under a temporary name beside `path`, then renames it
    /// into place: a build never sees half a file.
    package static func write(_ text: String, to path: String) throws(WrapperError) {
        let temporary = path + ".partial"
        guard let file = fopen(temporary, "wb") else { throw WrapperError("\(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let written = fwrite(bytes, 1, bytes.count, file)
        guard fclose(file) == 0, written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw WrapperError("\(path): cannot be written")
        }
    }
}
