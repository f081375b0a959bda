@_spi(Faces) import Switchboard
import CSwitchboard

@_cdecl("sb_discoverer_add")
public func sb_discoverer_add(_ m: sb_mediator_ptr?, _ fn: sb_discoverer_fn?, _ userdata: UnsafeMutableRawPointer?,
                              _ freeUserdata: sb_destroy_fn?, _ id: UnsafeMutablePointer<UInt64>?) -> sb_status {
    guard let m, let fn else {
        freeUserdata?(userdata)
        return failure(SB_EINVAL, "sb_discoverer_add: NULL mediator or function")
    }
    let discoverer = CDiscoverer(fn: fn, userdata: userdata, freeUserdata: freeUserdata, mediator: m)
    let assigned = Borrowed(CMediator.borrow(m)).read { $0.mediator.addProvider(discoverer) }
    id?.pointee = assigned
    return SB_OK
}

@_cdecl("sb_discoverer_remove")
public func sb_discoverer_remove(_ m: sb_mediator_ptr?, _ id: UInt64) -> sb_status {
    guard let m else { return failure(SB_EINVAL, "sb_discoverer_remove: NULL mediator") }
    let removed = Borrowed(CMediator.borrow(m)).read { c in
        id != c.pluginsProvider && c.mediator.removeProvider(id)
    }
    return removed ? SB_OK : failure(SB_ENOTFOUND, "sb_discoverer_remove: no discoverer has id \(id)")
}
