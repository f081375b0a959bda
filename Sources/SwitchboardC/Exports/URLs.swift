@_spi(Faces) import Switchboard
import CSwitchboard
#if canImport(Glibc)
import Glibc
#endif

// The URL entry (switchboard.h, "URLs").

@_cdecl("sb_url_open")
public func sb_url_open(_ m: sb_mediator_ptr?, _ url: UnsafePointer<CChar>?,
                        _ options: UnsafePointer<sb_url_options>?, _ out: sb_value_out?) -> sb_status {
    out?.pointee = nil
    guard let options else { return openURL(m, url, nil, nil, nil, out, "sb_url_open") }
    switch urlOptions(options, "sb_url_open") {
    case .failure(let error): return failure(error)
    case .success(let parsed): return openURL(m, url, parsed.params, parsed.completion, parsed.call, out, "sb_url_open")
    }
}

/// The URL options C passed, checked; the completion is refused where a
/// `done` callback stands for it.
func urlOptions(_ options: UnsafePointer<sb_url_options>?, _ caller: String, completion allowed: Bool = true,
                queue: Bool = false)
    -> Result<(params: sb_value_cptr?, completion: sb_value_cptr?, call: CallOptions), SwitchboardError> {
    guard let options else { return .success((nil, nil, .none)) }
    // The version alone first: it says how much of the struct there is.
    let version = options.pointer(to: \.version)!.pointee
    if let problem = versionProblem("sb_url_options", version, known: SB_URL_OPTIONS_VERSION) {
        return .failure(.invalidArgument("\(caller): \(problem)"))
    }
    // Every field is version 1's; as for sb_call_options, a later version
    // copies only as many bytes as the caller's version has.
    let o = versionedCopy(of: options, size: MemoryLayout<sb_url_options>.size, zero: sb_url_options())
    if o.completion != nil, !allowed {
        return .failure(.invalidArgument("\(caller): a completion is not taken here; `done` is the completion"))
    }
    switch callOptions(o.call, caller, queue: queue) {
    case .failure(let error): return .failure(error)
    case .success(let call): return .success((o.params, o.completion, call))
    }
}

/// sb_url_open and sb_url_open_async.
func openURL(_ m: sb_mediator_ptr?, _ url: UnsafePointer<CChar>?, _ params: sb_value_cptr?,
             _ completion: sb_value_cptr?, _ options: CallOptions?, _ out: sb_value_out?,
             _ caller: String) -> sb_status {
    guard let m, let url else { return failure(SB_EINVAL, "\(caller): NULL mediator or URL") }
    if let params, Handle(params).type != SB_DICT {
        return failure(SB_ETYPE, "\(caller): params must be a dict")
    }
    if let completion, Handle(completion).type != SB_CALLBACK {
        return failure(SB_ETYPE, "\(caller): the completion must be a callback")
    }
    var result: OpaquePointer?
    let status: sb_status
    // The length limit before anything that reads the whole text (a 16 MiB
    // URL is measured up to the limit, not validated and copied).
    let length = strnlen(url, RemoteURL.maximumLength + 1)
    if length > RemoteURL.maximumLength {
        status = failure(SB_EBADURL, "the URL is longer than \(RemoteURL.maximumLength) bytes, the limit")
    } else {
        status = Borrowed(CMediator.borrow(m)).read { box in
            // A plain call to a target is made from the bytes, without a
            // string (the core's PlainURLCall.swift); anything else, or any
            // problem, the general way.
            if params == nil, let plain = url.withMemoryRebound(to: UInt8.self, capacity: length, {
                box.mediator.openPlain(url: UnsafeBufferPointer(start: $0, count: length), options: options,
                                       out: &result, bridge: CBridge.self, params: CURLParams.self)
            }) {
                return sb_status(UInt32(plain))
            }
            guard let text = String(validatingCString: url) else {
                return failure(SB_EBADURL, "\(caller): the URL is not valid UTF-8")
            }
            return sb_status(UInt32(box.mediator.openNative(url: text, extra: params, options: options, out: &result,
                                                            bridge: CBridge.self)))
        }
    }
    if let completion { complete(completion, status, result) }
    if let out { out.pointee = result } else if let result { Handle(result).release() }
    return status
}

/// Calls the completion with {"result": value} or {"error", "code"}. The
/// thread's last error is kept for the caller, whatever the completion does.
private func complete(_ completion: OpaquePointer, _ status: sb_status, _ result: OpaquePointer?) {
    let message = status == SB_OK ? "" : lastError
    let info: Value
    if status == SB_OK, let result, let value = try? Handle(result).toValue() {
        info = ["result": value]
    } else {
        let code = SwitchboardError.Code(rawValue: Int32(bitPattern: status.rawValue))?.name ?? "EACTION"
        info = ["error": .string(message), "code": .string(code)]
    }
    guard let args = try? Handle.from(info) else { return }
    var ignored: OpaquePointer?
    _ = sb_callback_call(completion, args.pointer, &ignored)
    if let ignored { Handle(ignored).release() }
    args.release()
    if status != SB_OK { setLastError(message) }
}

@_cdecl("sb_scheme_register")
public func sb_scheme_register(_ m: sb_mediator_ptr?, _ scheme: UnsafePointer<CChar>?, _ fn: sb_fn?,
                               _ userdata: UnsafeMutableRawPointer?, _ freeUserdata: sb_destroy_fn?) -> sb_status {
    guard let m, case .success(let name) = validName(scheme, "scheme") else {
        freeUserdata?(userdata)
        return failure(SB_EINVAL, "sb_scheme_register: NULL mediator, or the scheme is not a non-empty name")
    }
    let mediator = CMediator.borrow(m).takeUnretainedValue().mediator
    do throws(SwitchboardError) {
        guard let fn else {
            defer { freeUserdata?(userdata) } // no function to own it
            try mediator.connect(scheme: name)
            return SB_OK
        }
        // A handler is an action of a target no caller can name (see
        // Mediator.connect(scheme:handler:)): replacing it releases the old
        // userdata once, and only URLs of the scheme reach it.
        // Made first, so that a refusal releases the userdata (its deinit).
        let function = CFunction(fn: fn, userdata: userdata, freeUserdata: freeUserdata,
                                 label: "the \(name) scheme handler")
        try mediator.connect(scheme: name, handler: function)
        return SB_OK
    } catch {
        return failure(error)
    }
}

@_cdecl("sb_scheme_unregister")
public func sb_scheme_unregister(_ m: sb_mediator_ptr?, _ scheme: UnsafePointer<CChar>?) -> sb_status {
    guard let m, case .success(let name) = validName(scheme, "scheme") else {
        return failure(SB_EINVAL, "sb_scheme_unregister: NULL mediator or scheme")
    }
    let mediator = CMediator.borrow(m).takeUnretainedValue().mediator
    return mediator.disconnect(scheme: name) ? SB_OK : failure(SB_ENOTFOUND, "the scheme \"\(name)\" is not connected")
}

@_cdecl("sb_scheme_unregister_if")
public func sb_scheme_unregister_if(_ m: sb_mediator_ptr?, _ scheme: UnsafePointer<CChar>?, _ fn: sb_fn?,
                                    _ userdata: UnsafeRawPointer?) -> sb_status {
    guard let m, let fn, case .success(let name) = validName(scheme, "scheme") else {
        return failure(SB_EINVAL, "sb_scheme_unregister_if: NULL mediator, scheme or function")
    }
    let mediator = CMediator.borrow(m).takeUnretainedValue().mediator
    return mediator.disconnect(scheme: name, ifHandler: { CFunction.isRegistration($0, fn, userdata) })
        ? SB_OK : failure(SB_ENOTFOUND, "the scheme \"\(name)\" has no handler with this function and userdata")
}

@_cdecl("sb_url_pattern_add_handler")
public func sb_url_pattern_add_handler(_ m: sb_mediator_ptr?, _ pattern: UnsafePointer<CChar>?, _ fn: sb_fn?,
                                       _ userdata: UnsafeMutableRawPointer?, _ freeUserdata: sb_destroy_fn?) -> sb_status {
    guard let m, let fn, case .success(let text) = validName(pattern, "pattern") else {
        freeUserdata?(userdata)
        return failure(SB_EINVAL, "sb_url_pattern_add_handler: NULL mediator or function, or a pattern that is not non-empty UTF-8")
    }
    let function = CFunction(fn: fn, userdata: userdata, freeUserdata: freeUserdata,
                             label: "the handler of \(Value.string(text))")
    do throws(SwitchboardError) {
        try CMediator.borrow(m).takeUnretainedValue().mediator.addURLPattern(text, handler: function)
        return SB_OK
    } catch {
        return failure(error)
    }
}

@_cdecl("sb_url_pattern_add")
public func sb_url_pattern_add(_ m: sb_mediator_ptr?, _ pattern: UnsafePointer<CChar>?, _ target: UnsafePointer<CChar>?,
                               _ action: UnsafePointer<CChar>?) -> sb_status {
    guard let m, case .success(let text) = validName(pattern, "pattern"),
          case .success(let target) = validName(target, "target"), case .success(let action) = validName(action, "action")
    else {
        return failure(SB_EINVAL, "sb_url_pattern_add: NULL mediator, or a pattern or name that is not non-empty UTF-8")
    }
    do throws(SwitchboardError) {
        try CMediator.borrow(m).takeUnretainedValue().mediator.addURLPattern(text, target: target, action: action)
        return SB_OK
    } catch {
        return failure(error)
    }
}

@_cdecl("sb_url_pattern_remove")
public func sb_url_pattern_remove(_ m: sb_mediator_ptr?, _ pattern: UnsafePointer<CChar>?) -> sb_status {
    guard let m, case .success(let text) = validName(pattern, "pattern") else {
        return failure(SB_EINVAL, "sb_url_pattern_remove: NULL mediator or pattern")
    }
    let removed = Borrowed(CMediator.borrow(m)).read { $0.mediator.removeURLPattern(text) }
    return removed ? SB_OK : failure(SB_ENOTFOUND, "no route was added with the pattern \(Value.string(text))")
}

@_cdecl("sb_url_pattern_remove_handler_if")
public func sb_url_pattern_remove_handler_if(_ m: sb_mediator_ptr?, _ pattern: UnsafePointer<CChar>?, _ fn: sb_fn?,
                                             _ userdata: UnsafeRawPointer?) -> sb_status {
    guard let m, let fn, case .success(let text) = validName(pattern, "pattern") else {
        return failure(SB_EINVAL, "sb_url_pattern_remove_handler_if: NULL mediator, pattern or function")
    }
    let mediator = CMediator.borrow(m).takeUnretainedValue().mediator
    return mediator.removeURLPattern(text, ifHandler: { CFunction.isRegistration($0, fn, userdata) })
        ? SB_OK : failure(SB_ENOTFOUND, "the pattern \(Value.string(text)) has no handler with this function and userdata")
}

@_cdecl("sb_url_set_policy")
public func sb_url_set_policy(_ m: sb_mediator_ptr?, _ policy: sb_value_cptr?) -> sb_status {
    guard let m else { return failure(SB_EINVAL, "sb_url_set_policy: NULL mediator") }
    var parsed = URLPolicy()
    if let policy {
        guard let value = try? Handle(policy).toValue(), let dict = value.dict else {
            return failure(SB_ETYPE, "sb_url_set_policy: the policy must be a dict")
        }
        func names(_ key: String) -> Result<[String]?, SwitchboardError> {
            switch dict[key] {
            case nil, .null?: return .success(nil)
            case .array(let items)?:
                let strings = items.compactMap(\.string)
                guard strings.count == items.count else { return .failure(.typeMismatch("policy.\(key) must hold strings")) }
                return .success(strings)
            default: return .failure(.typeMismatch("policy.\(key) must be an array of strings or null"))
            }
        }
        switch (names("schemes"), names("targets")) {
        case (.success(let schemes), .success(let targets)): parsed = URLPolicy(schemes: schemes, targets: targets)
        case (.failure(let error), _), (_, .failure(let error)): return failure(error)
        }
    }
    Borrowed(CMediator.borrow(m)).read { $0.mediator.urlPolicy = parsed }
    return SB_OK
}

@_cdecl("sb_url_require_signature")
public func sb_url_require_signature(_ m: sb_mediator_ptr?, _ key: UnsafeRawPointer?, _ length: size_t) -> sb_status {
    guard let m else { return failure(SB_EINVAL, "sb_url_require_signature: NULL mediator") }
    var signer: SignedURLFormat?
    guard length <= 4096 else { return failure(SB_EINVAL, "sb_url_require_signature: a key of at most 4096 bytes") }
    if let key {
        do throws(SwitchboardError) {
            signer = try SystemSigning.format(key: Array(UnsafeRawBufferPointer(start: key, count: Int(length))))
        } catch {
            return failure(error)
        }
    }
    Borrowed(CMediator.borrow(m)).read { $0.mediator.urlSigner = signer }
    return SB_OK
}

@_cdecl("sb_url_sign")
public func sb_url_sign(_ key: UnsafeRawPointer?, _ length: size_t, _ url: UnsafePointer<CChar>?,
                        _ expires: Int64) -> UnsafeMutablePointer<CChar>? {
    guard let key, let url else { _ = failure(SB_EINVAL, "sb_url_sign: NULL key or URL"); return nil }
    guard length <= 4096 else { _ = failure(SB_EINVAL, "sb_url_sign: a key of at most 4096 bytes"); return nil }
    guard strnlen(url, RemoteURL.maximumLength + 1) <= RemoteURL.maximumLength else {
        _ = failure(SB_EINVAL, "sb_url_sign: the URL is longer than \(RemoteURL.maximumLength) bytes, the limit")
        return nil
    }
    guard let text = String(validatingCString: url) else {
        _ = failure(SB_EINVAL, "sb_url_sign: the URL is not valid UTF-8")
        return nil
    }
    do throws(SwitchboardError) {
        let signer = try SystemSigning.format(key: Array(UnsafeRawBufferPointer(start: key, count: Int(length))))
        return strdup(try signer.sign(text, expires: expires))
    } catch {
        _ = failure(error)
        return nil
    }
}

@_cdecl("sb_url_set_observer")
public func sb_url_set_observer(_ m: sb_mediator_ptr?, _ fn: sb_fn?, _ userdata: UnsafeMutableRawPointer?,
                                _ freeUserdata: sb_destroy_fn?) -> sb_status {
    guard let m else {
        freeUserdata?(userdata)
        return failure(SB_EINVAL, "sb_url_set_observer: NULL mediator")
    }
    let mediator = CMediator.borrow(m).takeUnretainedValue().mediator
    guard let fn else {
        mediator.onRejectedURL = nil
        freeUserdata?(userdata)
        return SB_OK
    }
    let function = CFunction(fn: fn, userdata: userdata, freeUserdata: freeUserdata, label: "the URL observer")
    mediator.onRejectedURL = { rejected in
        // The observer must not change what the caller sees as its last error.
        let kept = lastError
        _ = try? function.call(["url": .string(rejected.url), "reason": .string(rejected.reason)], state: nil)
        setLastError(kept)
    }
    return SB_OK
}

@_cdecl("sb_routes")
public func sb_routes(_ m: sb_mediator_ptr?, _ out: sb_value_out?) -> sb_status {
    out?.pointee = nil
    guard let m, let out else { return failure(SB_EINVAL, "sb_routes: NULL mediator or out") }
    let routes = Borrowed(CMediator.borrow(m)).read { $0.mediator.routes() }
    do throws(SwitchboardError) {
        out.pointee = try Handle.from(routes).pointer
        return SB_OK
    } catch {
        return failure(error)
    }
}

@_cdecl("sb_routes_json")
public func sb_routes_json(_ m: sb_mediator_ptr?) -> UnsafeMutablePointer<CChar>? {
    guard let m else { _ = failure(SB_EINVAL, "sb_routes_json: NULL mediator"); return nil }
    return strdup(Borrowed(CMediator.borrow(m)).read { $0.mediator.routes() }.description)
}

/// The C face's params of a plain URL call, built from the query's bytes
/// (see the core's PlainURLCall.swift): a dict of strings, as
/// `CBridge.native(from:)` makes of the same query.
enum CURLParams: ForeignURLParams {
    static func newDict() -> OpaquePointer? {
        Handle(retaining: SBValue.container(SB_DICT)).pointer
    }

    static func add(to dict: OpaquePointer, key: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Bool {
        let keyBase = key.baseAddress ?? SBValue.emptyKey
        return Borrowed(Handle(dict).box!).read { box in
            guard box.find(key: keyBase, length: key.count) == nil else { return false }
            let element = Handle(retaining: SBValue.bytes(UnsafeRawBufferPointer(value), as: SB_STRING))
            guard box.set(key: keyBase, length: key.count, value: element) else {
                element.release()
                return false
            }
            return true
        }
    }
}
