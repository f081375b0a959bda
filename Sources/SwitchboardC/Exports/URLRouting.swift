@_spi(Faces) import Switchboard
import CSwitchboard
#if canImport(Glibc)
import Glibc
#endif

// The URL router's additions of 1.1 (switchboard.h, "URLs"): removing a
// scheme's patterns, converters, the unmatched-URL fallback, lookups and
// URLs built from patterns. Each is the Swift core's (Mediator+URLRouting.swift).

/// A scheme argument: NULL is "every scheme" where `nullable`.
private func schemeArgument(_ text: UnsafePointer<CChar>?, nullable: Bool) -> Result<String?, SwitchboardError> {
    if text == nil && nullable { return .success(nil) }
    return validName(text, "scheme").map { $0 }
}

/// Text the URL router reads whole (a URL, a pattern): measured up to the
/// URL length limit before anything reads it, then checked as UTF-8.
private func boundedText(_ text: UnsafePointer<CChar>?, _ what: String) -> Result<String, SwitchboardError> {
    guard let text else { return .failure(.invalidArgument("the \(what) is NULL")) }
    let length = strnlen(text, RemoteURL.maximumLength + 1)
    guard length <= RemoteURL.maximumLength else {
        return .failure(.badURL("the \(what) is longer than \(RemoteURL.maximumLength) bytes, the limit"))
    }
    guard let string = String(validatingCString: text) else { return .failure(.badURL("the \(what) is not valid UTF-8")) }
    return .success(string)
}

@_cdecl("sb_url_pattern_remove_scheme")
public func sb_url_pattern_remove_scheme(_ m: sb_mediator_ptr?, _ scheme: UnsafePointer<CChar>?,
                                         _ out: sb_value_out?) -> sb_status {
    out?.pointee = nil
    guard let m, case .success(let name) = validName(scheme, "scheme") else {
        return failure(SB_EINVAL, "sb_url_pattern_remove_scheme: NULL mediator, or the scheme is not a non-empty name")
    }
    let removed = CMediator.borrow(m).takeUnretainedValue().mediator.removeURLPatterns(scheme: name)
    guard !removed.isEmpty else { return failure(SB_ENOTFOUND, "the scheme \"\(name)\" has no pattern") }
    guard let out else { return SB_OK }
    do throws(SwitchboardError) {
        out.pointee = try Handle.from(.array(removed.map(Value.string))).pointer
        return SB_OK
    } catch {
        return failure(error)
    }
}

@_cdecl("sb_url_converter_add")
public func sb_url_converter_add(_ m: sb_mediator_ptr?, _ type: UnsafePointer<CChar>?, _ fn: sb_fn?,
                                 _ userdata: UnsafeMutableRawPointer?, _ freeUserdata: sb_destroy_fn?) -> sb_status {
    guard let m, let fn, case .success(let name) = validName(type, "converter") else {
        freeUserdata?(userdata)
        return failure(SB_EINVAL, "sb_url_converter_add: NULL mediator or function, or the type is not a non-empty name")
    }
    // Made first, so that a refusal releases the userdata (its deinit).
    let function = CFunction(fn: fn, userdata: userdata, freeUserdata: freeUserdata, label: "the URL converter \(Value.string(name))")
    do throws(SwitchboardError) {
        try CMediator.borrow(m).takeUnretainedValue().mediator.addURLConverter(name, handler: function)
        return SB_OK
    } catch {
        return failure(error)
    }
}

@_cdecl("sb_url_converter_remove")
public func sb_url_converter_remove(_ m: sb_mediator_ptr?, _ type: UnsafePointer<CChar>?) -> sb_status {
    guard let m, case .success(let name) = validName(type, "converter") else {
        return failure(SB_EINVAL, "sb_url_converter_remove: NULL mediator or type")
    }
    let removed = CMediator.borrow(m).takeUnretainedValue().mediator.removeURLConverter(name)
    return removed ? SB_OK : failure(SB_ENOTFOUND, "no URL converter of the type \(Value.string(name))")
}

@_cdecl("sb_url_converter_remove_if")
public func sb_url_converter_remove_if(_ m: sb_mediator_ptr?, _ type: UnsafePointer<CChar>?, _ fn: sb_fn?,
                                       _ userdata: UnsafeRawPointer?) -> sb_status {
    guard let m, let fn, case .success(let name) = validName(type, "converter") else {
        return failure(SB_EINVAL, "sb_url_converter_remove_if: NULL mediator, type or function")
    }
    let mediator = CMediator.borrow(m).takeUnretainedValue().mediator
    return mediator.removeURLConverter(name, ifHandler: { CFunction.isRegistration($0, fn, userdata) })
        ? SB_OK : failure(SB_ENOTFOUND, "the URL converter \(Value.string(name)) has no function with this userdata")
}

@_cdecl("sb_url_fallback_set")
public func sb_url_fallback_set(_ m: sb_mediator_ptr?, _ scheme: UnsafePointer<CChar>?, _ target: UnsafePointer<CChar>?,
                                _ action: UnsafePointer<CChar>?) -> sb_status {
    guard let m, case .success(let scheme) = schemeArgument(scheme, nullable: true),
          case .success(let target) = validName(target, "target"), case .success(let action) = validName(action, "action")
    else {
        return failure(SB_EINVAL, "sb_url_fallback_set: NULL mediator, or a scheme or name that is not non-empty UTF-8")
    }
    do throws(SwitchboardError) {
        try CMediator.borrow(m).takeUnretainedValue().mediator.setURLFallback(target: target, action: action, scheme: scheme)
        return SB_OK
    } catch {
        return failure(error)
    }
}

@_cdecl("sb_url_fallback_set_handler")
public func sb_url_fallback_set_handler(_ m: sb_mediator_ptr?, _ scheme: UnsafePointer<CChar>?, _ fn: sb_fn?,
                                        _ userdata: UnsafeMutableRawPointer?, _ freeUserdata: sb_destroy_fn?) -> sb_status {
    guard let m, let fn, case .success(let scheme) = schemeArgument(scheme, nullable: true) else {
        freeUserdata?(userdata)
        return failure(SB_EINVAL, "sb_url_fallback_set_handler: NULL mediator or function, or a scheme that is not non-empty UTF-8")
    }
    let function = CFunction(fn: fn, userdata: userdata, freeUserdata: freeUserdata,
                             label: "the unmatched-URL fallback" + (scheme.map { " of \($0)" } ?? ""))
    do throws(SwitchboardError) {
        try CMediator.borrow(m).takeUnretainedValue().mediator.setURLFallback(scheme: scheme, handler: function)
        return SB_OK
    } catch {
        return failure(error)
    }
}

@_cdecl("sb_url_fallback_remove")
public func sb_url_fallback_remove(_ m: sb_mediator_ptr?, _ scheme: UnsafePointer<CChar>?) -> sb_status {
    guard let m, case .success(let scheme) = schemeArgument(scheme, nullable: true) else {
        return failure(SB_EINVAL, "sb_url_fallback_remove: NULL mediator, or a scheme that is not non-empty UTF-8")
    }
    let removed = CMediator.borrow(m).takeUnretainedValue().mediator.removeURLFallback(scheme: scheme)
    return removed ? SB_OK : failure(SB_ENOTFOUND, "no unmatched-URL fallback" + (scheme.map { " for the scheme \"\($0)\"" } ?? ""))
}

@_cdecl("sb_url_fallback_remove_handler_if")
public func sb_url_fallback_remove_handler_if(_ m: sb_mediator_ptr?, _ scheme: UnsafePointer<CChar>?, _ fn: sb_fn?,
                                              _ userdata: UnsafeRawPointer?) -> sb_status {
    guard let m, let fn, case .success(let scheme) = schemeArgument(scheme, nullable: true) else {
        return failure(SB_EINVAL, "sb_url_fallback_remove_handler_if: NULL mediator or function, or a bad scheme")
    }
    let mediator = CMediator.borrow(m).takeUnretainedValue().mediator
    return mediator.removeURLFallback(scheme: scheme, ifHandler: { CFunction.isRegistration($0, fn, userdata) })
        ? SB_OK : failure(SB_ENOTFOUND, "the unmatched-URL fallback has no handler with this function and userdata")
}

@_cdecl("sb_url_lookup")
public func sb_url_lookup(_ m: sb_mediator_ptr?, _ url: UnsafePointer<CChar>?, _ out: sb_value_out?) -> sb_status {
    out?.pointee = nil
    guard let m else { return failure(SB_EINVAL, "sb_url_lookup: NULL mediator") }
    guard url != nil else { return failure(SB_EINVAL, "sb_url_lookup: NULL URL") }
    let text: String
    switch boundedText(url, "URL") {
    case .success(let string): text = string
    case .failure(let error): return failure(error)
    }
    do throws(SwitchboardError) {
        let mediator = CMediator.borrow(m).takeUnretainedValue().mediator
        if let out {
            out.pointee = try mediator.lookup(url: text) { (kind, scheme, target, action, pattern, params) throws(SwitchboardError) in
                try LookupAnswer.make(kind: kind, scheme: scheme, target: target, action: action, pattern: pattern,
                                      params: params).pointer
            }
        } else {
            _ = try mediator.lookup(url: text) { _, _, _, _, _, _ in () }
        }
        return SB_OK
    } catch {
        return failure(error)
    }
}

@_cdecl("sb_url_build")
public func sb_url_build(_ m: sb_mediator_ptr?, _ pattern: UnsafePointer<CChar>?, _ params: sb_value_cptr?,
                         _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> sb_status {
    out?.pointee = nil
    guard let m, let out, pattern != nil else { return failure(SB_EINVAL, "sb_url_build: NULL mediator, pattern or out") }
    let text: String
    switch boundedText(pattern, "pattern") {
    case .success(let string): text = string
    case .failure(let error): return failure(SB_EINVAL, error.message)
    }
    do throws(SwitchboardError) {
        var dict: Params = [:]
        if let params {
            guard Handle(params).type == SB_DICT else { return failure(SB_ETYPE, "sb_url_build: params must be a dict") }
            dict = try Handle(params).toValue().dict ?? [:]
        }
        let url = try CMediator.borrow(m).takeUnretainedValue().mediator.buildURL(pattern: text, params: dict)
        guard let copy = strdup(url) else { return failure(SB_ENOMEM, "sb_url_build: no memory for the URL") }
        out.pointee = copy
        return SB_OK
    } catch {
        return failure(error)
    }
}
