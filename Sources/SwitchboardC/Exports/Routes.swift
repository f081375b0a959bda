@_spi(Faces) import Switchboard
import CSwitchboard

@_cdecl("sb_route_prepare")
public func sb_route_prepare(_ m: sb_mediator_ptr?, _ target: UnsafePointer<CChar>?, _ action: UnsafePointer<CChar>?,
                             _ flags: CUnsignedInt, _ out: sb_route_out?) -> sb_status {
    out?.pointee = nil
    guard let m, let out else { return failure(SB_EINVAL, "sb_route_prepare: NULL mediator or out") }
    guard flags & ~SB_CACHE_TARGET == 0 else { return failure(SB_EINVAL, "sb_route_prepare: unknown flags \(flags)") }
    guard case .success(let target) = validName(target, "target"), case .success(let action) = validName(action, "action") else {
        return failure(SB_EINVAL, "sb_route_prepare: names must be non-empty UTF-8")
    }
    do throws(SwitchboardError) {
        let mediator = CMediator.borrow(m).takeUnretainedValue().mediator
        let route = try mediator.route(target: target, action: action, cacheTarget: flags & SB_CACHE_TARGET != 0)
        out.pointee = OpaquePointer(Unmanaged.passRetained(route).toOpaque())
        return SB_OK
    } catch {
        return failure(error)
    }
}

@_cdecl("sb_route_call")
public func sb_route_call(_ r: sb_route_ptr?, _ params: sb_value_cptr?, _ out: sb_value_out?) -> sb_status {
    out?.pointee = nil
    guard let r else { return failure(SB_EINVAL, "sb_route_call: NULL route") }
    if let params, Handle(params).type != SB_DICT {
        return failure(SB_ETYPE, "sb_route_call: params must be a dict")
    }
    var result: OpaquePointer?
    let status = Borrowed(Unmanaged<Route>.fromOpaque(UnsafeRawPointer(r))).read {
        $0.callNative(params: params ?? emptyParams, out: &result, bridge: CBridge.self)
    }
    if let out { out.pointee = result } else if let result { Handle(result).release() }
    return sb_status(UInt32(status))
}

@_cdecl("sb_route_free")
public func sb_route_free(_ r: sb_route_ptr?) {
    if let r { Unmanaged<Route>.fromOpaque(UnsafeRawPointer(r)).release() }
}
