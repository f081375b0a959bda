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
    // No options: no CallOptions to build, as for sb_action_perform.
    guard let options else {
        return detached(done, userdata) { out in
            perform(m, target, action, params, cache: false, nil, out, "sb_action_perform_async")
        }
    }
    let read = readCallOptions(options) // once: its queue, then the rest
    // Options that ask for a queue and no more (SB_CACHE_TARGET and
    // SB_NO_FALLBACK aside): the call is a plain one, and builds no CallOptions.
    if let o = read, o.flags & ~(SB_CACHE_TARGET | SB_NO_FALLBACK) == 0, o.tag_count == 0, o.cancel == nil,
       o.timeout_ms == 0 {
        let cache = o.flags & SB_CACHE_TARGET != 0, fallback = o.flags & SB_NO_FALLBACK == 0
        return detached(done, userdata, queue: o.queue) { out in
            perform(m, target, action, params, cache: cache, fallback: fallback, nil, out, "sb_action_perform_async")
        }
    }
    return detached(done, userdata, queue: read?.queue) { out in
        switch callOptions(options, read: read, "sb_action_perform_async", more: SB_NO_FALLBACK, queue: true) {
        case .failure(let error): return failure(error)
        case .success(let parsed):
            let fallback = (read?.flags ?? 0) & SB_NO_FALLBACK == 0
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
    // The call options' queue, when the URL options' version can be read.
    let call = options.flatMap { o in
        versionProblem("sb_url_options", o.pointer(to: \.version)!.pointee, known: SB_URL_OPTIONS_VERSION) == nil
            ? o.pointer(to: \.call)!.pointee : nil
    }
    return detached(done, userdata, queue: queue(of: call)) { out in
        switch urlOptions(options, "sb_url_open_async", completion: false, queue: true) {
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

@_cdecl("sb_service_perform_async")
public func sb_service_perform_async(_ m: sb_mediator_ptr?, _ name: UnsafePointer<CChar>?,
                                     _ action: UnsafePointer<CChar>?, _ params: sb_value_cptr?, _ flags: CUnsignedInt,
                                     _ options: UnsafePointer<sb_call_options>?, _ done: sb_done_fn?,
                                     _ userdata: UnsafeMutableRawPointer?) -> sb_status {
    guard let m, let done else { return failure(SB_EINVAL, "sb_service_perform_async: NULL mediator or done callback") }
    return detached(done, userdata, queue: queue(of: options)) { out in
        if let options {
            switch callOptions(options, "sb_service_perform_async", queue: true) {
            case .failure(let error): return failure(error)
            case .success:
                // Readable: callOptions read it.
                let o = readCallOptions(options)!
                guard o.flags == 0, o.tag_count == 0, o.cancel == nil, o.timeout_ms == 0 else {
                    return failure(SB_EINVAL, "sb_service_perform_async: a service call takes only a queue in its "
                                   + "options (its flags are the `flags` argument)")
                }
            }
        }
        return sb_service_perform(m, name, action, params, flags, out)
    }
}

/// The delivery queue of `options`, when their version can be read (an
/// unreadable one fails the call, whose `done` then runs at once).
private func queue(of options: UnsafePointer<sb_call_options>?) -> OpaquePointer? {
    options.flatMap(readCallOptions)?.queue
}

@_cdecl("sb_completion_caller_waits")
public func sb_completion_caller_waits(_ id: UInt64) -> CInt {
    OpenCompletions.callerWaits(id) ? 1 : 0
}

/// Runs `call` so that it does not wait; gives `done` its end, now or later.
/// SB_OK when `done` ran here already; SB_PENDING when it runs on the thread
/// that ends the call (possibly already), or after the callback this thread
/// is running. With a `queue` (switchboard.h, "Event loops") the end goes
/// through it, unless it came at once on the queue's own thread.
private func detached(_ done: @escaping sb_done_fn, _ userdata: UnsafeMutableRawPointer?, queue: OpaquePointer? = nil,
                      _ call: (sb_value_out) -> sb_status) -> sb_status {
    // Made first, so that ending the call never allocates.
    var delivery: OpaquePointer?
    if let queue {
        let made = sb__delivery_new(queue, done, userdata, &delivery)
        if made != SB_OK { return made }
    }
    var result: OpaquePointer?
    // A queue freed while the action runs refuses its completion from then
    // on; a call that answers later may need no completion object.
    let queuedCaller = delivery.map {
        Deferral.QueuedCaller(check: sb__delivery_cancelled, hand: handToDelivery, context: UnsafeMutableRawPointer($0))
    }
    let (status, detached, here) = Deferral.detachingHere(queuedCaller: queuedCaller) { call(&result) }
    let pending: Completion?
    switch detached {
    case .none: pending = nil
    case .object(let completion): pending = completion
    case .entry(let id):
        // No layer worked on the answer: the queue holds the call, and its
        // completer hands the answer over (OpenCompletions, `queued`).
        if status == SB_PENDING, let queuedCaller {
            Deferral.hold(id, by: queuedCaller, here)
            return SB_PENDING
        }
        pending = Deferral.objectOfDetached(id, here)
    }
    let context = UnsafeUserdata(userdata)
    guard let pending, status == SB_PENDING else {
        // A layer turned a pending call into an answer (none does today):
        // that answer stands, and the completion is refused from now on.
        // (What it asks of the caller's queue reads the delivery, which goes below.)
        pending?.forgetQueuedCaller()
        pending?.giveUp()
        let ended = status == SB_PENDING ? failure(SB_EACTION, "the call returned pending") : status
        if let delivery {
            switch sb__delivery_claim(delivery) {
            case 1: break // the queue's thread: at once, below
            case 0: // the queue was freed meanwhile: its `done` ran there
                CBridge.release(result)
                return SB_PENDING
            default:
                sb__delivery_end(delivery, ended, result, ended == SB_OK ? nil : sb_error_message(), nil)
                return SB_PENDING
            }
        }
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
    if let delivery {
        // Before a consumer is given: until then the answer cannot reach it.
        sb__delivery_watch(delivery, Unmanaged.passRetained(pending).toOpaque(), letGoOfCall)
        pending.faceContext = UnsafeMutableRawPointer(delivery)
        pending.deliver(to: { [pending] answer in
            let queued = end(OpaquePointer(pending.faceContext!), with: answer, kept: nil)
            // The queue was freed first: its done got SB_ECANCELED; so does the completer.
            if queued != 1 { pending.refuseAsConsumer() }
        }, queued: true)
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

/// A call's answer handed to its delivery without a completion object
/// (Deferral.QueuedCaller): as the consumer of a watched call does, with
/// what the call kept, let go after its `done` ran.
private let handToDelivery: @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer, UInt, UInt) -> CInt = {
    delivery, answer, owner, instance in
    let delivery = OpaquePointer(delivery!)
    var kept = sb__kept(owner: UnsafeMutableRawPointer(bitPattern: owner),
                        instance: UnsafeMutableRawPointer(bitPattern: instance), let_go: letGoOfKept)
    return withUnsafePointer(to: &kept) { kept in
        end(delivery, with: answer.assumingMemoryBound(to: Completion.Answer.self).pointee,
            kept: owner == 0 && instance == 0 ? nil : kept)
    }
}

/// Ends a call's delivery with its answer (sb__delivery_end's result).
@inline(__always)
private func end(_ delivery: OpaquePointer, with answer: Completion.Answer, kept: UnsafePointer<sb__kept>?) -> CInt {
    switch CBridge.nativeAnswer(answer) {
    case .success(let value): return sb__delivery_end(delivery, SB_OK, value, nil, kept)
    case .failure(let error): return error.message.withCString { sb__delivery_end(delivery, sb_status(error), nil, $0, kept) }
    }
}

/// What a call handed over without an object kept, after its `done` ran.
private let letGoOfKept: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { owner, instance in
    if let owner { Unmanaged<AnyObject>.fromOpaque(owner).release() }
    if let instance { Unmanaged<AnyObject>.fromOpaque(instance).release() }
}

/// A queued call's completion, as its delivery lets go of it after its
/// `done` ran (in a dispatch, or in sb_queue_free): given up first when the
/// queue was freed before the call ended. What the call kept goes with it
/// if it completed: here, outside any completion, after `done` returned.
private let letGoOfCall: @convention(c) (UnsafeMutableRawPointer?, CInt) -> Void = { call, giveUp in
    let completion = Unmanaged<Completion>.fromOpaque(call!).takeRetainedValue()
    if giveUp != 0 { completion.giveUp() }
    completion.letGoAfterDelivery()
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
