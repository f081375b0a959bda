@_spi(Faces) import Switchboard
import CSwitchboard

@_cdecl("sb_callback_new")
public func sb_callback_new(_ fn: sb_fn?, _ userdata: UnsafeMutableRawPointer?,
                            _ freeUserdata: sb_destroy_fn?) -> sb_value_ptr? {
    guard let fn else {
        freeUserdata?(userdata)
        _ = failure(SB_EINVAL, "sb_callback_new: NULL function")
        return nil
    }
    let function = CFunction(fn: fn, userdata: userdata, freeUserdata: freeUserdata, label: "callback")
    return Handle(retaining: SBValue.object(Callback(foreign: function), as: SB_CALLBACK)).pointer
}

@_cdecl("sb_callback_call")
public func sb_callback_call(_ callback: sb_value_cptr?, _ args: sb_value_cptr?, _ out: sb_value_out?) -> sb_status {
    out?.pointee = nil
    guard let callback else { return failure(SB_EINVAL, "sb_callback_call: NULL callback") }
    guard let target = Handle(callback).box.flatMap({ Borrowed($0).read { $0.callback } }) else {
        return failure(SB_ETYPE, "sb_callback_call: the value is \(typeWithArticle(sb_value_type(callback)))")
    }
    var result: OpaquePointer?
    let status: sb_status
    if let native = target.callNative(args, out: &result, bridge: CBridge.self) {
        // Made in C (or by the Lua module through C): no conversion. It
        // counts against the call depth as a Swift callback's call does.
        status = sb_status(UInt32(bitPattern: native))
    } else {
        do throws(SwitchboardError) {
            var argument = Value.null
            if let args { argument = try Handle(args).toValue() }
            result = try Handle.from(try target(argument)).pointer
            status = SB_OK
        } catch {
            status = failure(error)
        }
    }
    if let out { out.pointee = result } else if let result { Handle(result).release() }
    return status
}
