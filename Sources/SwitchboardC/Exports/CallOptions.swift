@_spi(Faces) import Switchboard
import CSwitchboard
#if canImport(Glibc)
import Glibc
#endif

// Per-call options and cancellation (switchboard.h, "interceptors, rules,
// observers").

/// The options C passed, as the core's; nil with the error set when they
/// are malformed.
/// `more` names flags the caller takes besides those (SB_NO_FALLBACK).
/// `queue` says whether the caller may take a delivery queue (it does not
/// wait: the caller reads it with `readCallOptions`).
func callOptions(_ options: UnsafePointer<sb_call_options>?, _ caller: String,
                 more: CUnsignedInt = 0, queue: Bool = false) -> Result<CallOptions, SwitchboardError> {
    guard let options else { return .success(.none) }
    return callOptions(options, read: readCallOptions(options), caller, more: more, queue: queue)
}

/// `callOptions` of options read already (`read`: nil for a version this
/// library cannot read).
func callOptions(_ options: UnsafePointer<sb_call_options>, read: sb_call_options?, _ caller: String,
                 more: CUnsignedInt = 0, queue: Bool = false) -> Result<CallOptions, SwitchboardError> {
    guard let o = read else {
        let version = UnsafeRawPointer(options).load(as: CInt.self)
        let problem = versionProblem("sb_call_options", version, known: SB_CALL_OPTIONS_VERSION) ?? "unreadable"
        return .failure(.invalidArgument("\(caller): \(problem)"))
    }
    if o.queue != nil && !queue {
        return .failure(.invalidArgument("\(caller): sb_call_options.queue is for callers that do not wait "
                                         + "(sb_action_perform_async, sb_url_open_async, sb_service_perform_async)"))
    }
    guard o.flags & ~(SB_CACHE_TARGET | SB_BYPASS_INTERCEPTORS | more) == 0 else {
        return .failure(.invalidArgument("\(caller): unknown flags \(o.flags)"))
    }
    var tags: [String] = []
    // size_t arrives as Int: read it as the unsigned count it is, so that a
    // huge one is refused rather than taken for a negative "none".
    let tagCount = UInt(bitPattern: o.tag_count)
    if tagCount > 0 {
        guard let list = o.tags else { return .failure(.invalidArgument("\(caller): tag_count is \(tagCount) but tags is NULL")) }
        guard tagCount <= UInt(maximumTags) else {
            return .failure(.invalidArgument("\(caller): \(tagCount) tags; at most \(maximumTags)"))
        }
        // The bytes are bounded before any is copied: every observer sees
        // every tag at the start and at the end of the call.
        var room = maximumTagBytes
        for i in 0..<Int(tagCount) {
            guard let tag = list[i] else { return .failure(.invalidArgument("\(caller): tag \(i) is NULL or not UTF-8")) }
            let length = strnlen(tag, room + 1)
            guard length <= room else {
                return .failure(.invalidArgument("\(caller): the tags hold more than \(maximumTagBytes) bytes, the limit"))
            }
            room -= length
            guard let text = String(validatingCString: tag) else {
                return .failure(.invalidArgument("\(caller): tag \(i) is NULL or not UTF-8"))
            }
            tags.append(text)
        }
    }
    let cancellation = o.cancel.map { Unmanaged<Cancellation>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
    return .success(CallOptions(tags: tags, bypassInterceptors: o.flags & SB_BYPASS_INTERCEPTORS != 0,
                                cancellation: cancellation, cacheTarget: o.flags & SB_CACHE_TARGET != 0,
                                timeout: o.timeout_ms == 0 ? nil : .milliseconds(Int64(o.timeout_ms))))
}

/// The most tags a call carries, and the most bytes they hold together
/// (switchboard.h, sb_call_options).
let maximumTags = 1 << 16
let maximumTagBytes = 1 << 16

/// The fields of `options` its version has (later ones zero), or nil for a
/// version this library cannot read.
func readCallOptions(_ options: UnsafePointer<sb_call_options>) -> sb_call_options? {
    let version = UnsafeRawPointer(options).load(as: CInt.self)
    // (versionProblem's test, without building its message's arguments.)
    guard version >= 1 && version <= SB_CALL_OPTIONS_VERSION else { return nil }
    // A version adds its fields at the end: only as many bytes as the
    // caller's version has are read (version 2 added `queue`).
    let size = version == 1 ? MemoryLayout<sb_call_options>.offset(of: \sb_call_options.queue)!
                            : MemoryLayout<sb_call_options>.size
    return versionedCopy(of: options, size: size, zero: sb_call_options())
}

@_cdecl("sb_action_perform_opts")
public func sb_action_perform_opts(_ m: sb_mediator_ptr?, _ target: UnsafePointer<CChar>?, _ action: UnsafePointer<CChar>?,
                                   _ params: sb_value_cptr?, _ options: UnsafePointer<sb_call_options>?,
                                   _ out: sb_value_out?) -> sb_status {
    out?.pointee = nil
    switch callOptions(options, "sb_action_perform_opts", more: SB_NO_FALLBACK) {
    case .failure(let error): return failure(error)
    case .success(let parsed):
        let fallback = options.flatMap(readCallOptions).map { $0.flags & SB_NO_FALLBACK == 0 } ?? true
        return perform(m, target, action, params, cache: parsed.cacheTarget, fallback: fallback, parsed, out,
                       "sb_action_perform_opts")
    }
}

@_cdecl("sb_cancellation_new")
public func sb_cancellation_new() -> sb_cancel_ptr? {
    OpaquePointer(Unmanaged.passRetained(Cancellation()).toOpaque())
}

@_cdecl("sb_cancellation_request")
public func sb_cancellation_request(_ c: sb_cancel_ptr?) {
    guard let c else { return }
    Unmanaged<Cancellation>.fromOpaque(UnsafeRawPointer(c)).takeUnretainedValue().cancel()
}

@_cdecl("sb_cancellation_requested")
public func sb_cancellation_requested(_ c: sb_cancel_cptr?) -> CInt {
    guard let c else { return 0 }
    return Unmanaged<Cancellation>.fromOpaque(UnsafeRawPointer(c)).takeUnretainedValue().isCancelled ? 1 : 0
}

@_cdecl("sb_cancellation_free")
public func sb_cancellation_free(_ c: sb_cancel_ptr?) {
    guard let c else { return }
    Unmanaged<Cancellation>.fromOpaque(UnsafeRawPointer(c)).release()
}

@_cdecl("sb_action_cancelled")
public func sb_action_cancelled() -> CInt {
    Mediator.isCancelled ? 1 : 0
}
