@_spi(Faces) import Switchboard
import CSwitchboard

// Mediators, registration, perform (switchboard.h, "mediator", "registering",
// "performing").

@_cdecl("sb_mediator_shared")
public func sb_mediator_shared() -> sb_mediator_ptr? {
    OpaquePointer(Unmanaged.passUnretained(CMediator.shared).toOpaque())
}

@_cdecl("sb_mediator_new")
public func sb_mediator_new() -> sb_mediator_ptr? {
    OpaquePointer(Unmanaged.passRetained(CMediator(Mediator())).toOpaque())
}

@_cdecl("sb_mediator_free")
public func sb_mediator_free(_ m: sb_mediator_ptr?) {
    guard let m else { return }
    let mediator = CMediator.borrow(m)
    if Borrowed(mediator).read({ $0.isShared }) { return }
    // Nothing may run on it later: not even a call an interceptor decides.
    Borrowed(mediator).read { $0.mediator.endSuspendedCalls() }
    mediator.release()
}

/// Runs `body` with the mediator behind `m`, or fails with SB_EINVAL.
@inline(__always)
private func with(_ m: sb_mediator_ptr?, _ caller: String, _ body: (Mediator) -> sb_status) -> sb_status {
    guard let m else { return failure(SB_EINVAL, "\(caller): NULL mediator") }
    return Borrowed(CMediator.borrow(m)).read { body($0.mediator) }
}

@_cdecl("sb_action_register")
public func sb_action_register(_ m: sb_mediator_ptr?, _ target: UnsafePointer<CChar>?, _ action: UnsafePointer<CChar>?,
                               _ fn: sb_fn?, _ userdata: UnsafeMutableRawPointer?,
                               _ freeUserdata: sb_destroy_fn?) -> sb_status {
    registerAction(m, target, action, contract: nil, fn, userdata, freeUserdata, caller: "sb_action_register")
}

@_cdecl("sb_action_register_contract")
public func sb_action_register_contract(_ m: sb_mediator_ptr?, _ target: UnsafePointer<CChar>?,
                                        _ action: UnsafePointer<CChar>?, _ contract: UnsafePointer<CChar>?,
                                        _ fn: sb_fn?, _ userdata: UnsafeMutableRawPointer?,
                                        _ freeUserdata: sb_destroy_fn?) -> sb_status {
    registerAction(m, target, action, contract: contract, fn, userdata, freeUserdata,
                   caller: "sb_action_register_contract")
}

@_cdecl("sb_contract_check")
public func sb_contract_check(_ contract: UnsafePointer<CChar>?) -> sb_status {
    guard let contract, let text = String(validatingCString: contract) else {
        return failure(SB_EINVAL, "sb_contract_check: the contract is NULL or not UTF-8")
    }
    do throws(SwitchboardError) {
        _ = try Contract(parsing: text).validated(for: nil)
        return SB_OK
    } catch {
        return failure(error)
    }
}

private func registerAction(_ m: sb_mediator_ptr?, _ target: UnsafePointer<CChar>?, _ action: UnsafePointer<CChar>?,
                            contract: UnsafePointer<CChar>?, _ fn: sb_fn?, _ userdata: UnsafeMutableRawPointer?,
                            _ freeUserdata: sb_destroy_fn?, caller: String) -> sb_status {
    guard let fn else {
        freeUserdata?(userdata)
        return failure(SB_EINVAL, "\(caller): NULL function")
    }
    // From here the function owns the userdata: if registration fails, its
    // release runs free_userdata.
    let validated = validName(target, "target").flatMap { t in validName(action, "action").map { (t, $0) } }
    let function = CFunction(fn: fn, userdata: userdata, freeUserdata: freeUserdata,
                             label: (try? validated.get()).map { "\($0.0).\($0.1)" } ?? "action")
    guard case .success(let (target, action)) = validated else {
        if case .failure(let error) = validated { return failure(error) }
        return SB_EINVAL
    }
    let text = contract.map { String(validatingCString: $0) }
    if case .some(.none) = text { return failure(SB_EINVAL, "\(caller): the contract is not UTF-8") }
    return with(m, caller) { mediator in
        do throws(SwitchboardError) {
            try mediator.register(target: target, action: action, contract: text ?? nil, foreign: function)
            return SB_OK
        } catch {
            return failure(error)
        }
    }
}

@_cdecl("sb_target_unregister")
public func sb_target_unregister(_ m: sb_mediator_ptr?, _ target: UnsafePointer<CChar>?) -> sb_status {
    guard case .success(let target) = validName(target, "target") else {
        return failure(SB_EINVAL, "sb_target_unregister: the target name must be non-empty UTF-8")
    }
    return with(m, "sb_target_unregister") { mediator in
        mediator.unregister(target: target) ? SB_OK : failure(SB_ENOTFOUND, "nothing is registered as \"\(target)\"")
    }
}

@_cdecl("sb_action_unregister")
public func sb_action_unregister(_ m: sb_mediator_ptr?, _ target: UnsafePointer<CChar>?,
                                 _ action: UnsafePointer<CChar>?) -> sb_status {
    guard case .success(let target) = validName(target, "target"), case .success(let action) = validName(action, "action") else {
        return failure(SB_EINVAL, "sb_action_unregister: names must be non-empty UTF-8")
    }
    return with(m, "sb_action_unregister") { mediator in
        mediator.unregister(target: target, action: action)
            ? SB_OK : failure(SB_ENOTFOUND, "\"\(target).\(action)\" is not registered")
    }
}

@_cdecl("sb_action_unregister_if")
public func sb_action_unregister_if(_ m: sb_mediator_ptr?, _ target: UnsafePointer<CChar>?,
                                    _ action: UnsafePointer<CChar>?, _ fn: sb_fn?,
                                    _ userdata: UnsafeRawPointer?) -> sb_status {
    guard case .success(let target) = validName(target, "target"), case .success(let action) = validName(action, "action") else {
        return failure(SB_EINVAL, "sb_action_unregister_if: names must be non-empty UTF-8")
    }
    guard let fn else { return failure(SB_EINVAL, "sb_action_unregister_if: NULL function") }
    return with(m, "sb_action_unregister_if") { mediator in
        mediator.unregister(target: target, action: action, ifOwned: { CFunction.isRegistration($0, fn, userdata) })
            ? SB_OK : failure(SB_ENOTFOUND, "\"\(target).\(action)\" is not registered with this function and userdata")
    }
}

@_cdecl("sb_target_set_origin")
public func sb_target_set_origin(_ m: sb_mediator_ptr?, _ target: UnsafePointer<CChar>?,
                                 _ origin: UnsafePointer<CChar>?) -> sb_status {
    guard case .success(let target) = validName(target, "target"), case .success(let origin) = validName(origin, "origin") else {
        return failure(SB_EINVAL, "sb_target_set_origin: the target and the origin must be non-empty UTF-8")
    }
    return with(m, "sb_target_set_origin") { mediator in
        do throws(SwitchboardError) {
            try mediator.setOrigin(origin, ofTarget: target)
            return SB_OK
        } catch {
            return failure(error)
        }
    }
}

/// The module `params` name: the value of SB_MODULE_KEY, else of
/// SB_MODULE_KEY_CTMEDIATOR, the first that is a non-empty string (as
/// `Mediator.module(in:)` reads Swift params).
private func moduleName(in params: SBValue) -> String? {
    guard params.h.pointee.hasModuleKey else { return nil }
    for (base, count, hash) in [(ModuleKey.base, ModuleKey.count, ModuleKey.hash),
                                (ModuleKey.Alias.base, ModuleKey.Alias.count, ModuleKey.Alias.hash)] {
        let module = params.find(key: base, length: count, hash: hash).flatMap { i in
            params.dictEntries[i].value.box.flatMap { Borrowed($0).read { $0.type == SB_STRING ? $0.stringValue : nil } }
        }
        if let module, !module.isEmpty { return module }
    }
    return nil
}

@_cdecl("sb_action_perform")
public func sb_action_perform(_ m: sb_mediator_ptr?, _ target: UnsafePointer<CChar>?, _ action: UnsafePointer<CChar>?,
                              _ params: sb_value_cptr?, _ flags: CUnsignedInt, _ out: sb_value_out?) -> sb_status {
    out?.pointee = nil
    guard flags & ~SB_CACHE_TARGET == 0 else { return performFlagged(m, target, action, params, flags, out) }
    return perform(m, target, action, params, cache: flags & SB_CACHE_TARGET != 0, nil, out, "sb_action_perform")
}

/// sb_action_perform with flags other than SB_CACHE_TARGET: SB_NO_FALLBACK, or
/// unknown ones. Out of line, so that a plain call stays as short as it was.
@inline(never)
private func performFlagged(_ m: sb_mediator_ptr?, _ target: UnsafePointer<CChar>?, _ action: UnsafePointer<CChar>?,
                            _ params: sb_value_cptr?, _ flags: CUnsignedInt, _ out: sb_value_out?) -> sb_status {
    guard flags & ~(SB_CACHE_TARGET | SB_NO_FALLBACK) == 0 else {
        return failure(SB_EINVAL, "sb_action_perform: unknown flags \(flags)")
    }
    return perform(m, target, action, params, cache: flags & SB_CACHE_TARGET != 0, fallback: false, nil, out,
                   "sb_action_perform")
}

/// `perform`'s call to the mediator for SB_NO_FALLBACK, out of line.
@inline(never)
private func performWithoutFallback(_ m: sb_mediator_ptr, _ target: UnsafePointer<CChar>,
                                    _ action: UnsafePointer<CChar>, _ params: sb_value_cptr?, hasModuleKey: Bool,
                                    cache: Bool, _ options: CallOptions?, _ out: inout OpaquePointer?) -> Int32 {
    let module = hasModuleKey ? Borrowed(Handle(params!).box!).read { moduleName(in: $0) } : nil
    return Borrowed(CMediator.borrow(m)).read { c in
        c.mediator.performNativeWithoutFallback(target: target, action: action, module: module,
                                                params: params ?? emptyParams, cache: cache, options: options,
                                                out: &out, bridge: CBridge.self)
    }
}

/// sb_action_perform and sb_action_perform_opts.
@inline(__always)
func perform(_ m: sb_mediator_ptr?, _ target: UnsafePointer<CChar>?, _ action: UnsafePointer<CChar>?,
             _ params: sb_value_cptr?, cache: Bool, fallback: Bool = true, _ options: CallOptions?,
             _ out: sb_value_out?, _ caller: StaticString) -> sb_status {
    // `options` is nil for sb_action_perform: a plain call builds no CallOptions
    // (an array and a reference to copy) on its way to its plan.
    guard let m, let target, let action, target.pointee != 0, action.pointee != 0 else {
        return failure(SB_EINVAL, "\(caller): NULL mediator, or a NULL or empty name")
    }
    var hasModuleKey = false
    if let params {
        guard let box = Handle(params).box, Borrowed(box).read({ $0.type == SB_DICT }) else {
            return failure(SB_ETYPE, "\(caller): params must be a dict, not \(typeWithArticle(Handle(params).type))")
        }
        hasModuleKey = Borrowed(box).read { $0.h.pointee.hasModuleKey }
    }
    var result: OpaquePointer?
    let status = !fallback
        ? performWithoutFallback(m, target, action, params, hasModuleKey: hasModuleKey, cache: cache, options,
                                 &result)
        : Borrowed(CMediator.borrow(m)).read { c in
        // Most calls name no module: they pass a literal nil, no String at all.
        let module = hasModuleKey ? Borrowed(Handle(params!).box!).read { moduleName(in: $0) } : nil
        return module == nil
            ? c.mediator.performNative(target: target, action: action, module: nil, params: params ?? emptyParams,
                                       cache: cache, options: options, out: &result, bridge: CBridge.self)
            : c.mediator.performNative(target: target, action: action, module: module, params: params ?? emptyParams,
                                       cache: cache, options: options, out: &result, bridge: CBridge.self)
    }
    if let out { out.pointee = result } else if let result { Handle(result).release() }
    return sb_status(UInt32(status))
}

@_cdecl("sb_target_evict")
public func sb_target_evict(_ m: sb_mediator_ptr?, _ target: UnsafePointer<CChar>?) -> sb_status {
    guard case .success(let target) = validName(target, "target") else {
        return failure(SB_EINVAL, "sb_target_evict: the target name must be non-empty UTF-8")
    }
    return with(m, "sb_target_evict") { mediator in
        mediator.evict(target: target)
            ? SB_OK : failure(SB_ENOTFOUND, "no cached instance of \"\(target)\" to release")
    }
}
