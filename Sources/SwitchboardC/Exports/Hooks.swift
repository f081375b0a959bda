@_spi(Faces) import Switchboard
import CSwitchboard

// Observers, rules and the degrade handler (switchboard.h, "interceptors,
// rules, observers").

/// A C observer with its userdata.
private final class CObserver: @unchecked Sendable {
    // @unchecked: immutable; what `userdata` points to is the C code's to guard.
    let fn: sb_observer_fn
    let userdata: UnsafeMutableRawPointer?
    let freeUserdata: sb_destroy_fn?

    init(fn: sb_observer_fn, userdata: UnsafeMutableRawPointer?, freeUserdata: sb_destroy_fn?) {
        self.fn = fn
        self.userdata = userdata
        self.freeUserdata = freeUserdata
    }

    deinit { freeUserdata?(userdata) }

    func tell(_ event: CallEvent) {
        let params = (try? event.carried.native(CBridge.self)) ?? nil
        let (result, owned) = event.result?.native(CBridge.self) ?? (nil, false)
        defer { if owned { CBridge.release(result) } }
        let status = event.error.map { sb_status(UInt32($0.code.rawValue)) } ?? SB_OK
        withOptionalCString(event.target) { target in
            withOptionalCString(event.action) { action in
                withOptionalCString(event.url) { url in
                    withOptionalCString(event.error?.message) { message in
                        withCStrings(event.tags) { tags in
                            var c = sb_call_event(version: SB_CALL_EVENT_VERSION,
                                                  phase: event.phase == .start ? SB_CALL_START : SB_CALL_END,
                                                  target: target, action: action, url: url,
                                                  tags: tags, tag_count: event.tags.count, status: status,
                                                  message: message, duration_ns: event.duration,
                                                  params: params ?? emptyParams, result: result)
                            fn(userdata, &c)
                        }
                    }
                }
            }
        }
    }
}

/// `strings` as a C array of C strings (NULL for none), valid during `body`.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    guard !strings.isEmpty else { return body(nil) }
    var bytes: [CChar] = [] // every string with its NUL, one after another
    var starts: [Int] = []
    for string in strings {
        starts.append(bytes.count)
        bytes.append(contentsOf: string.utf8CString)
    }
    return bytes.withUnsafeBufferPointer { buffer in
        let pointers: [UnsafePointer<CChar>?] = starts.map { buffer.baseAddress! + $0 }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}

private func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}

@_cdecl("sb_observer_add")
public func sb_observer_add(_ m: sb_mediator_ptr?, _ fn: sb_observer_fn?, _ userdata: UnsafeMutableRawPointer?,
                            _ freeUserdata: sb_destroy_fn?, _ id: UnsafeMutablePointer<UInt64>?) -> sb_status {
    guard let m, let fn else {
        freeUserdata?(userdata)
        return failure(SB_EINVAL, "sb_observer_add: NULL mediator or function")
    }
    let observer = CObserver(fn: fn, userdata: userdata, freeUserdata: freeUserdata)
    do throws(SwitchboardError) {
        let assigned = try CMediator.borrow(m).takeUnretainedValue().mediator.addObserver { observer.tell($0) }
        id?.pointee = assigned.rawValue
        return SB_OK
    } catch {
        return failure(error) // the observer's userdata is released with it
    }
}

@_cdecl("sb_observer_remove")
public func sb_observer_remove(_ m: sb_mediator_ptr?, _ id: UInt64) -> sb_status {
    guard let m else { return failure(SB_EINVAL, "sb_observer_remove: NULL mediator") }
    let removed = Borrowed(CMediator.borrow(m)).read { $0.mediator.removeObserver(ObserverID(rawValue: id)) }
    return removed ? SB_OK : failure(SB_ENOTFOUND, "sb_observer_remove: no observer has id \(id)")
}

@_cdecl("sb_rules_set_json")
public func sb_rules_set_json(_ m: sb_mediator_ptr?, _ json: UnsafePointer<CChar>?) -> sb_status {
    guard let m, let json else { return failure(SB_EINVAL, "sb_rules_set_json: NULL mediator or JSON") }
    guard let text = String(validatingCString: json) else { return failure(SB_EINVAL, "sb_rules_set_json: the JSON is not UTF-8") }
    do throws(SwitchboardError) {
        try CMediator.borrow(m).takeUnretainedValue().mediator.setRules(json: text)
        return SB_OK
    } catch {
        return failure(SB_EINVAL, "sb_rules_set_json: \(error.message)")
    }
}

@_cdecl("sb_degrade_handler_set")
public func sb_degrade_handler_set(_ m: sb_mediator_ptr?, _ fn: sb_fn?, _ userdata: UnsafeMutableRawPointer?,
                                   _ freeUserdata: sb_destroy_fn?) -> sb_status {
    guard let m else {
        freeUserdata?(userdata)
        return failure(SB_EINVAL, "sb_degrade_handler_set: NULL mediator")
    }
    let mediator = CMediator.borrow(m).takeUnretainedValue().mediator
    guard let fn else {
        freeUserdata?(userdata)
        mediator.setDegradeHandler(foreign: nil)
        return SB_OK
    }
    mediator.setDegradeHandler(foreign: CFunction(fn: fn, userdata: userdata, freeUserdata: freeUserdata,
                                                  label: "the degrade handler"))
    return SB_OK
}

@_cdecl("sb_degrade_handler_clear_if")
public func sb_degrade_handler_clear_if(_ m: sb_mediator_ptr?, _ fn: sb_fn?, _ userdata: UnsafeRawPointer?) -> sb_status {
    guard let m, let fn else { return failure(SB_EINVAL, "sb_degrade_handler_clear_if: NULL mediator or function") }
    let mediator = CMediator.borrow(m).takeUnretainedValue().mediator
    return mediator.removeDegradeHandler(ifOwned: { CFunction.isRegistration($0, fn, userdata) })
        ? SB_OK : failure(SB_ENOTFOUND, "sb_degrade_handler_clear_if: the degrade handler is not this function and userdata")
}

@_cdecl("sb_interceptor_allow_bypass")
public func sb_interceptor_allow_bypass(_ m: sb_mediator_ptr?, _ allow: CInt) -> sb_status {
    guard let m else { return failure(SB_EINVAL, "sb_interceptor_allow_bypass: NULL mediator") }
    Borrowed(CMediator.borrow(m)).read { $0.mediator.allowsBypass = allow != 0 }
    return SB_OK
}
