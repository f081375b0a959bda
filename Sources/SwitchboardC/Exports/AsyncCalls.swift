@_spi(Faces) import Switchboard
import CSwitchboard

// Callers that do not wait (switchboard.h, "Asynchronous actions"): the call
// runs on the caller's thread as any call does; if its action answers later,
// the call returns through its layers at once (Deferral.detaching) and `done`
// gets the answer on the thread that ends the call.

@_cdecl("sb_action_perform_async")
public func sb_action_perform_async(_ m: sb_mediator_ptr?, _ target: UnsafePointer<CChar>?, _ action: UnsafePointer<CChar>?,
                                    _ params: sb_value_cptr?, _ options: UnsafePointer<sb_call_options>?,
                                    _ done: sb_done_fn?, _ userdata: UnsafeMutableRawPointer?) -> sb_status {
    guard let m, let done else { return failure(SB_EINVAL, "sb_action_perform_async: NULL mediator or done callback") }
    return detached(done, userdata) { out in
        // No options: no CallOptions to build, as for sb_action_perform.
        guard let options else { return perform(m, target, action, params, cache: false, nil, out, "sb_action_perform_async") }
        switch callOptions(options, "sb_action_perform_async", more: SB_NO_FALLBACK) {
        case .failure(let error): return failure(error)
        case .success(let parsed):
            let fallback = (readCallOptions(options)?.flags ?? 0) & SB_NO_FALLBACK == 0
            return perform(m, target, action, params, cache: parsed.cacheTarget, fallback: fallback, parsed, out,
                           "sb_action_perform_async")
        }
    }
}

@_cdecl("sb_url_open_async")
public func sb_url_open_async(_ m: sb_mediator_ptr?, _ url: UnsafePointer<CChar>?,
                              _ options: UnsafePointer<sb_url_options>?, _ done: sb_done_fn?,
                              _ userdata: UnsafeMutableRawPointer?) -> sb_status {
    guard let m, let done else { return failure(SB_EINVAL, "sb_url_open_async: NULL mediator or done callback") }
    return detached(done, userdata) { out in
        switch urlOptions(options, "sb_url_open_async", completion: false) {
        case .failure(let error): return failure(error)
        case .success(let parsed): return openURL(m, url, parsed.params, nil, parsed.call, out, "sb_url_open_async")
        }
    }
}

@_cdecl("sb_route_call_async")
public func sb_route_call_async(_ r: sb_route_ptr?, _ params: sb_value_cptr?, _ done: sb_done_fn?,
                                _ userdata: UnsafeMutableRawPointer?) -> sb_status {
    guard let r, let done else { return failure(SB_EINVAL, "sb_route_call_async: NULL route or done callback") }
    return detached(done, userdata) { out in sb_route_call(r, params, out) }
}

@_cdecl("sb_completion_caller_waits")
public func sb_completion_caller_waits(_ id: UInt64) -> CInt {
    OpenCompletions.callerWaits(id) ? 1 : 0
}

/// Runs `call` so that it does not wait; gives `done` its end, now or later.
/// SB_OK when `done` ran here already; SB_PENDING when it runs on the thread
/// that ends the call (possibly already), or after the callback this thread
/// is running.
private func detached(_ done: @escaping sb_done_fn, _ userdata: UnsafeMutableRawPointer?,
                      _ call: (sb_value_out) -> sb_status) -> sb_status {
    var result: OpaquePointer?
    let (status, pending, here) = Deferral.detachingHere { call(&result) }
    let context = UnsafeUserdata(userdata)
    guard let pending, status == SB_PENDING else {
        // A layer turned a pending call into an answer (none does today):
        // that answer stands, and the completion is refused from now on.
        pending?.giveUp()
        let ended = status == SB_PENDING ? failure(SB_EACTION, "the call returned pending") : status
        if Deferral.beginDelivery(here) {
            done(userdata, ended, result)
            Deferral.endDelivery(here)
            return SB_OK
        }
        // Inside another callback: after it, as later answers are, so that
        // a done that starts calls ending at once loops instead of recursing.
        let message = ended == SB_OK ? "" : lastError
        let answer = UnsafeUserdata(result.map { UnsafeMutableRawPointer($0) })
        Deferral.runDelivery {
            if ended != SB_OK { setLastError(message) }
            done(context.pointer, ended, answer.pointer.map { OpaquePointer($0) })
        }
        return SB_PENDING
    }
    let ranHere = pending.deliver { answer in
        switch CBridge.nativeAnswer(answer) {
        case .success(let value): done(context.pointer, SB_OK, value)
        case .failure(let error): done(context.pointer, failure(error), nil)
        }
    }
    return ranHere ? SB_OK : SB_PENDING
}

/// The caller's userdata, carried to the thread that ends the call (the
/// header makes it the caller's to guard).
private struct UnsafeUserdata: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer?
    init(_ pointer: UnsafeMutableRawPointer?) { self.pointer = pointer }
}

extension CBridge {
    /// An answer as a new C reference, or the failure it is (or that
    /// converting it met).
    static func nativeAnswer(_ answer: Completion.Answer) -> Result<OpaquePointer, SwitchboardError> {
        do throws(SwitchboardError) {
            switch answer {
            case .native(let native, let face) where ObjectIdentifier(face) == ObjectIdentifier(CBridge.self):
                return .success(native ?? Handle.null.pointer)
            case .native(let native, let face):
                defer { face.release(native) }
                return .success(try CBridge.native(from: try face.value(from: native)))
            case .value(let value):
                return .success(try CBridge.native(from: value))
            case .failure(let error):
                return .failure(error)
            }
        } catch {
            return .failure(error)
        }
    }
}
