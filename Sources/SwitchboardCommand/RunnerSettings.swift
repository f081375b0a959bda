import SwitchboardRunner

#if canImport(Glibc)
import Glibc
#endif

/// An `sbr_config` and the C memory it points to, alive as long as this is.
final class RunnerSettings {
    private(set) var config = sbr_config()
    private var strings: [UnsafeMutablePointer<CChar>] = []
    private var arrays: [UnsafeMutablePointer<UnsafePointer<CChar>?>] = []
    private var prelude: UnsafeMutableBufferPointer<CChar>?

    init<Subject>(load: LoadOptions, limits: LimitOptions<Subject>, trace: TraceFile? = nil, reportDescriptor: Int32 = STDOUT_FILENO,
                  coverage: Bool = false) {
        let plugins = cArray(load.plugins)
        let directories = cArray(load.targetDirectories)
        config.plugins = UnsafePointer(plugins)
        config.plugin_count = load.plugins.count
        config.target_dirs = UnsafePointer(directories)
        config.target_dir_count = load.targetDirectories.count
        config.timeout_seconds = limits.timeout
        config.max_instructions = limits.maxInstructions
        config.max_memory_bytes = limits.maxMemory << 20
        config.grace_seconds = limits.grace
        config.allow_os = limits.allowOS ? 1 : 0
        let source = ScenarioAPI.source
        let buffer = UnsafeMutableBufferPointer<CChar>.allocate(capacity: source.count)
        for (i, byte) in source.enumerated() { buffer[i] = CChar(bitPattern: byte) }
        prelude = buffer
        config.prelude = UnsafePointer(buffer.baseAddress)
        config.prelude_length = source.count
        config.report_fd = reportDescriptor
        config.coverage = coverage ? 1 : 0
        if let trace {
            config.trace = { context, line, length in
                guard let context, let line else { return }
                Unmanaged<TraceFile>.fromOpaque(context).takeUnretainedValue().write(line, length)
            }
            config.trace_context = Unmanaged.passUnretained(trace).toOpaque()
            traceFile = trace
        }
    }

    private var traceFile: TraceFile? // kept alive for config.trace_context

    private func cArray(_ values: [String]) -> UnsafeMutablePointer<UnsafePointer<CChar>?> {
        let array = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: max(values.count, 1))
        for (i, value) in values.enumerated() {
            let copy = strdup(value)!
            strings.append(copy)
            array[i] = UnsafePointer(copy)
        }
        arrays.append(array)
        return array
    }

    deinit {
        strings.forEach { free($0) }
        arrays.forEach { $0.deallocate() }
        prelude?.deallocate()
    }
}
