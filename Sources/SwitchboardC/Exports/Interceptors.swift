@_spi(Faces) import Switchboard
import CSwitchboard

// Interceptors and the calls they see (switchboard.h, "interceptors, rules,
// observers").

@_cdecl("sb_interceptor_add")
public func sb_interceptor_add(_ m: sb_mediator_ptr?, _ priority: CInt, _ fn: sb_interceptor_fn?,
                               _ userdata: UnsafeMutableRawPointer?, _ freeUserdata: sb_destroy_fn?,
                               _ id: UnsafeMutablePointer<UInt64>?) -> sb_status {
    guard let m, let fn else {
        freeUserdata?(userdata)
        return failure(SB_EINVAL, "sb_interceptor_add: NULL mediator or function")
    }
    let interceptor = CInterceptor(fn: fn, userdata: userdata, freeUserdata: freeUserdata)
    let mediator = CMediator.borrow(m).takeUnretainedValue().mediator
    do throws(SwitchboardError) {
        // The name needs the id: register under a placeholder, then rename.
        let assigned = try mediator.addInterceptor(named: "C interceptor", priority: Int(priority),
                                                   timeout: Mediator.defaultInterceptorTimeout, origin: "C") {
            interceptor.run($0)
        }
        _ = try mediator.reconfigureInterceptor(assigned, name: "C interceptor \(assigned)", timeout: nil)
        id?.pointee = assigned
        return SB_OK
    } catch {
        return failure(error)
    }
}

@_cdecl("sb_interceptor_remove")
public func sb_interceptor_remove(_ m: sb_mediator_ptr?, _ id: UInt64) -> sb_status {
    guard let m else { return failure(SB_EINVAL, "sb_interceptor_remove: NULL mediator") }
    let removed = Borrowed(CMediator.borrow(m)).read { $0.mediator.removeInterceptor(InterceptorID(rawValue: id)) }
    return removed ? SB_OK : failure(SB_ENOTFOUND, "sb_interceptor_remove: no interceptor has id \(id)")
}

@_cdecl("sb_interceptor_set_options")
public func sb_interceptor_set_options(_ m: sb_mediator_ptr?, _ id: UInt64, _ name: UnsafePointer<CChar>?,
                                       _ timeoutMs: CUnsignedInt) -> sb_status {
    guard let m else { return failure(SB_EINVAL, "sb_interceptor_set_options: NULL mediator") }
    var text: String?
    if let name {
        guard case .success(let valid) = validName(name, "interceptor") else {
            return failure(SB_EINVAL, "sb_interceptor_set_options: the name must be non-empty UTF-8")
        }
        text = valid
    }
    let timeout: Duration? = timeoutMs == 0 ? nil : .milliseconds(Int(timeoutMs))
    do throws(SwitchboardError) {
        let found = try CMediator.borrow(m).takeUnretainedValue().mediator
            .reconfigureInterceptor(id, name: text, timeout: timeout)
        return found ? SB_OK : failure(SB_ENOTFOUND, "sb_interceptor_set_options: no interceptor has id \(id)")
    } catch {
        return failure(error)
    }
}

// MARK: The call

@_cdecl("sb_call_target")
public func sb_call_target(_ call: sb_call_cptr?) -> UnsafePointer<CChar>? {
    call.flatMap { CCall.find($0)?.cString(.target) }
}

@_cdecl("sb_call_action")
public func sb_call_action(_ call: sb_call_cptr?) -> UnsafePointer<CChar>? {
    call.flatMap { CCall.find($0)?.cString(.action) }
}

@_cdecl("sb_call_url")
public func sb_call_url(_ call: sb_call_cptr?) -> UnsafePointer<CChar>? {
    call.flatMap { CCall.find($0)?.cString(.url) }
}

@_cdecl("sb_call_interceptor")
public func sb_call_interceptor(_ call: sb_call_cptr?) -> UnsafePointer<CChar>? {
    call.flatMap { CCall.find($0)?.cString(.interceptor) }
}

@_cdecl("sb_call_params")
public func sb_call_params(_ call: sb_call_cptr?) -> sb_value_cptr? {
    guard let call else { return nil }
    guard let c = CCall.find(call) else { return emptyParams }
    return ((try? c.interception.carried.native(CBridge.self)) ?? nil) ?? emptyParams
}

@_cdecl("sb_call_tag_count")
public func sb_call_tag_count(_ call: sb_call_cptr?) -> size_t {
    size_t(call.flatMap { CCall.find($0)?.interception.tags.count } ?? 0)
}

@_cdecl("sb_call_tag")
public func sb_call_tag(_ call: sb_call_cptr?, _ i: size_t) -> UnsafePointer<CChar>? {
    // size_t arrives as Int: (size_t)-1 is -1 here, and `tag` answers nil.
    call.flatMap { CCall.find($0)?.tag(i) }
}

@_cdecl("sb_call_cancelled")
public func sb_call_cancelled(_ call: sb_call_cptr?) -> CInt {
    (call.flatMap { CCall.find($0) }?.interception.isCancelled ?? false) ? 1 : 0
}

@_cdecl("sb_call_caller_waits")
public func sb_call_caller_waits(_ call: sb_call_cptr?) -> CInt {
    (call.flatMap { CCall.find($0) }?.interception.callerWaits ?? true) ? 1 : 0
}

// MARK: Decisions

@_cdecl("sb_call_proceed")
public func sb_call_proceed(_ call: sb_call_ptr?) -> sb_status {
    guard let call else { return failure(SB_EINVAL, "sb_call_proceed: NULL call") }
    return CCall.decide(call, .proceed, "sb_call_proceed")
}

@_cdecl("sb_call_redirect")
public func sb_call_redirect(_ call: sb_call_ptr?, _ target: UnsafePointer<CChar>?, _ action: UnsafePointer<CChar>?,
                             _ params: sb_value_cptr?) -> sb_status {
    guard let call else { return failure(SB_EINVAL, "sb_call_redirect: NULL call") }
    guard let c = CCall.find(call) else { return CCall.decide(call, .proceed, "sb_call_redirect") }
    var names = (c.interception.target, c.interception.action)
    if target != nil {
        guard case .success(let t) = validName(target, "target") else { return failure(SB_EINVAL, "sb_call_redirect: the target must be non-empty UTF-8") }
        names.0 = t
    }
    if action != nil {
        guard case .success(let a) = validName(action, "action") else { return failure(SB_EINVAL, "sb_call_redirect: the action must be non-empty UTF-8") }
        names.1 = a
    }
    var newParams: Params?
    if let params {
        guard Handle(params).type == SB_DICT, let value = try? CBridge.value(from: params) else {
            return failure(SB_ETYPE, "sb_call_redirect: params must be a dict")
        }
        newParams = value.dict
    }
    return CCall.decide(call, .redirect(target: names.0, action: names.1, params: newParams), "sb_call_redirect")
}

@_cdecl("sb_call_reject")
public func sb_call_reject(_ call: sb_call_ptr?, _ status: sb_status, _ message: UnsafePointer<CChar>?) -> sb_status {
    guard let call else { return failure(SB_EINVAL, "sb_call_reject: NULL call") }
    guard let c = CCall.find(call) else { return CCall.decide(call, .proceed, "sb_call_reject") }
    let raw = Int32(bitPattern: status.rawValue)
    let code = raw == 0 ? .rejected : SwitchboardError.Code(rawValue: raw) ?? .rejected
    let text = message.flatMap { String(validatingCString: $0) }
        ?? "interceptor \"\(c.interception.interceptor)\" rejected the call to \(c.interception.target).\(c.interception.action)"
    return CCall.decide(call, .reject(SwitchboardError(code: code, message: text)), "sb_call_reject")
}

@_cdecl("sb_call_answer")
public func sb_call_answer(_ call: sb_call_ptr?, _ value: sb_value_cptr?) -> sb_status {
    guard let call else { return failure(SB_EINVAL, "sb_call_answer: NULL call") }
    let answer: Value
    do throws(SwitchboardError) {
        answer = try CBridge.value(from: value)
    } catch {
        return failure(error)
    }
    return CCall.decide(call, .answer(answer), "sb_call_answer")
}
