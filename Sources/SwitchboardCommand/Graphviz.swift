#if canImport(Glibc)
import Glibc
#endif

/// Graphviz's `dot` program, which draws DOT as SVG or PNG for `switchboard
/// graph`. Not bundled: it is the Debian package graphviz, found on PATH.
enum Graphviz {
    /// The `dot` program on PATH, or a failure that says how to get it.
    static func find(for format: String) throws -> String {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/dot"
            var info = stat()
            if stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        throw CommandFailure("""
            --format \(format) needs Graphviz's dot program, which is not on PATH: install the Debian package \
            graphviz (apt-get install graphviz), or write DOT (--format dot, or -o FILE.dot) and draw it elsewhere
            """)
    }

    /// Runs `dot -T<format>` over `source`, writing the drawing to `output`
    /// (a descriptor). The DOT goes through an unlinked temporary file, so
    /// nothing is left behind and no pipe can break under us.
    /// `dot` is ended after `timeout` seconds (0: no limit): a graph too big
    /// to lay out, or a `dot` that hangs, does not hang the command.
    static func render(_ source: String, format: String, program: String, output: Int32, timeout: Double) throws {
        let input = try unlinkedFile(holding: source)
        defer { close(input) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input, STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, output, STDOUT_FILENO)
        // The child starts with default signal handling and nothing blocked,
        // whatever the run set up for itself.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(program), strdup("-T\(format)"), nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, program, &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw CommandFailure("cannot run \(program): \(String(cString: strerror(spawned)))") }
        let status = try wait(for: pid, program: program, timeout: timeout)
        let exited = status & 0x7F == 0
        guard exited && (status >> 8) & 0xFF == 0 else {
            let how = exited ? "exited with status \((status >> 8) & 0xFF)" : "was ended by signal \(status & 0x7F)"
            throw CommandFailure("\(program) -T\(format) \(how) (what it said is above)")
        }
    }

    /// `pid`'s status once it ended, polled so that it can be ended (SIGKILL)
    /// past `timeout` seconds, which is then the failure.
    private static func wait(for pid: pid_t, program: String, timeout: Double) throws -> Int32 {
        let deadline = timeout > 0 ? monotonicSeconds() + timeout : Double.infinity
        var status: Int32 = 0
        while true {
            let ended = waitpid(pid, &status, WNOHANG)
            if ended == pid { return status }
            guard ended == 0 || errno == EINTR else {
                throw CommandFailure("waiting for \(program): \(String(cString: strerror(errno)))")
            }
            if monotonicSeconds() > deadline {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                throw CommandFailure("\(program) did not finish within \(timeout) s (--timeout): it was ended")
            }
            usleep(10_000)
        }
    }

    /// A temporary file holding `text`, already unlinked, read from its start.
    private static func unlinkedFile(holding text: String) throws -> Int32 {
        let directory = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(directory)/switchboard-graph.XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw CommandFailure("cannot make a temporary file in \(directory): \(String(cString: strerror(errno)))") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        unlink(template)
        var text = text
        let written = text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
        guard written, lseek(fd, 0, SEEK_SET) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw CommandFailure("cannot write a temporary file in \(directory): \(reason)")
        }
        return fd
    }
}
