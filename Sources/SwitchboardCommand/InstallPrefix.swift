#if canImport(Glibc)
import Glibc
#endif

/// Where the command is installed, so that `--help` names the real folders
/// (`/usr/local/share/switchboard/examples`) instead of `PREFIX/...`.
enum InstallPrefix {
    /// PREFIX for PREFIX/bin/switchboard, when PREFIX/share/switchboard/examples
    /// is there (an installed or staged command); nil for a build folder's.
    static let path: String? = {
        guard let exe = realpath("/proc/self/exe", nil) else { return nil }
        defer { free(exe) }
        var prefix = String(cString: exe)
        for _ in 0..<2 {
            guard let slash = prefix.lastIndex(of: "/") else { return nil }
            prefix = String(prefix[..<slash])
        }
        var info = stat()
        guard stat(prefix + "/share/switchboard/examples", &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
        return prefix.isEmpty ? "/" : prefix
    }()

    /// `text` with "PREFIX/" made the real prefix when it is known. Left as
    /// it is otherwise: the manual pages are made from a build folder's
    /// command, and scripts/install.sh writes the prefix into them.
    static func expand(_ text: String) -> String {
        guard let path else { return text }
        let base = Array((path == "/" ? "/" : path + "/").utf8)
        let word = Array("PREFIX/".utf8)
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == word[0], bytes.count - i >= word.count, Array(bytes[i..<i + word.count]) == word {
                out += base
                i += word.count
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
