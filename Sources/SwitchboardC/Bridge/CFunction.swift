@_spi(Faces) import Switchboard
import CSwitchboard

/// An `sb_fn` with its userdata: a C action, a C callback, or a plugin's
/// action. Runs `free_userdata` exactly once, when the last holder lets go.
final class CFunction: ForeignFunction, @unchecked Sendable {
    // @unchecked: immutable; what `userdata` points to is the C code's to guard.

    let fn: sb_fn
    let userdata: UnsafeMutableRawPointer?
    let freeUserdata: sb_destroy_fn?
    /// A plugin action: its userdata is the target instance's state.
    let usesInstanceState: Bool
    /// Keeps a plugin loaded while any of its functions can be called.
    let owner: AnyObject?
    /// What to call it in messages: "A.showAlert", "callback".
    let label: String

    init(fn: sb_fn, userdata: UnsafeMutableRawPointer?, freeUserdata: sb_destroy_fn?,
         usesInstanceState: Bool = false, owner: AnyObject? = nil, label: String) {
        self.fn = fn
        self.userdata = userdata
        self.freeUserdata = freeUserdata
        self.usesInstanceState = usesInstanceState
        self.owner = owner
        self.label = label
        super.init()
    }

    deinit { freeUserdata?(userdata) }

    /// Whether `function` is a C function registered as `fn` with `userdata`
    /// (not a plugin's action, whose userdata is its instance's state).
    static func isRegistration(_ function: ForeignFunction, _ fn: sb_fn, _ userdata: UnsafeRawPointer?) -> Bool {
        guard let c = function as? CFunction, !c.usesInstanceState else { return false }
        return unsafeBitCast(c.fn, to: UnsafeRawPointer.self) == unsafeBitCast(fn, to: UnsafeRawPointer.self)
            && UnsafeRawPointer(c.userdata) == userdata
    }

    /// Calls the function with C arguments. Normalizes what C code may get
    /// wrong: a success without a result becomes SB_NULL; a failure that left
    /// a result releases it; an unknown status becomes SB_EACTION; a failure
    /// without a message gets one.
    override func callNative(_ args: OpaquePointer?, state: UnsafeMutableRawPointer?,
                    out: UnsafeMutablePointer<OpaquePointer?>) -> Int32 {
        out.pointee = nil
        let messagesBefore = sb__error_generation()
        let status = fn(usesInstanceState ? state : userdata, args, out)
        return Self.normalize(status, out: out, messagesBefore: messagesBefore, label: label)
    }

    /// What `callNative` makes of a C function's `status` and `*out` (also
    /// for the actions of a registered class).
    @inline(__always)
    static func normalize(_ status: sb_status, out: UnsafeMutablePointer<OpaquePointer?>, messagesBefore: UInt,
                          label: String) -> Int32 {
        if status == SB_OK {
            if out.pointee == nil { out.pointee = Handle.null.pointer }
            if Deferral.returned() { return answeredEarly(out: out, label: label) }
            return 0
        }
        // It answers later: wait for it here, so that whatever called it
        // sees an answer like any other (Async/Deferral.swift).
        if status == SB_PENDING && out.pointee == nil { return Deferral.settle(out: out, bridge: CBridge.self, label: label) }
        return normalizeFailure(status, out: out, messagesBefore: messagesBefore, label: label)
    }

    /// The action's completion was completed before it returned an answer
    /// of its own: the first answer wins (Deferral.returned), so what it
    /// returned is released and the call gets the completion's.
    @inline(never)
    static func answeredEarly(out: UnsafeMutablePointer<OpaquePointer?>, label: String) -> Int32 {
        if let returned = out.pointee {
            Handle(returned).release()
            out.pointee = nil
        }
        return Deferral.settle(out: out, bridge: CBridge.self, label: label)
    }

    /// `normalize` of a failure: out of line, so a success costs one compare.
    @inline(never)
    static func normalizeFailure(_ status: sb_status, out: UnsafeMutablePointer<OpaquePointer?>,
                                         messagesBefore: UInt, label: String) -> Int32 {
        if let leftover = out.pointee {
            Handle(leftover).release()
            out.pointee = nil
        }
        // Pending with a result left in `out` (released above): as in `normalize`.
        if status == SB_PENDING { return Deferral.settle(out: out, bridge: CBridge.self, label: label) }
        if Deferral.returned() { return answeredEarly(out: out, label: label) }
        guard status.rawValue <= sb_status.highest.rawValue else {
            // Keep what the function said; C enums may be signed, so show the number as C wrote it.
            let said = sb__error_generation() == messagesBefore ? "" : ": " + String(cString: sb_error_message())
            setLastError("\(label) failed with unknown status \(Int32(truncatingIfNeeded: status.rawValue))\(said)")
            return Int32(SB_EACTION.rawValue)
        }
        if sb__error_generation() == messagesBefore {
            setLastError("\(label) failed: \(String(cString: sb_status_string(status)!))")
        }
        return Int32(status.rawValue)
    }

    /// Calls the function for a Swift caller: converts in and out.
    override func call(_ args: Value, state: UnsafeMutableRawPointer?) throws(SwitchboardError) -> Value {
        try callConverting(args, state: state)
    }
}

extension ForeignFunction {
    /// `call` for a function whose `callNative` takes C values: the Swift
    /// args converted in, the result converted out.
    func callConverting(_ args: Value, state: UnsafeMutableRawPointer?) throws(SwitchboardError) -> Value {
        let native = try Handle.from(args)
        defer { native.release() }
        var out: OpaquePointer?
        let status = callNative(native.pointer, state: state, out: &out)
        if status == Deferral.pendingStatus { throw Deferral.pending }
        guard status == 0, let out else { throw SwitchboardError(status: status) }
        defer { Handle(out).release() }
        return try Handle(out).toValue()
    }
}
