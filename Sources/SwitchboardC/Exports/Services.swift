@_spi(Faces) import Switchboard
import CSwitchboard

// Named services (Switchboard/Services/Mediator+Interfaces.swift).

private func withServiceMediator(_ m: sb_mediator_ptr?, _ name: UnsafePointer<CChar>?, _ caller: String,
                                 _ body: (Mediator, String) throws(SwitchboardError) -> sb_status) -> sb_status {
    guard let m else { return failure(SB_EINVAL, "\(caller): NULL mediator") }
    let service: String
    switch validName(name, "service") {
    case .success(let valid): service = valid
    case .failure(let error): return failure(sb_status(error), "\(caller): \(error.message)")
    }
    return Borrowed(CMediator.borrow(m)).read { c in
        do throws(SwitchboardError) {
            return try body(c.mediator, service)
        } catch {
            return failure(error)
        }
    }
}

@_cdecl("sb_service_define")
public func sb_service_define(_ m: sb_mediator_ptr?, _ name: UnsafePointer<CChar>?,
                              _ interface: UnsafePointer<CChar>?) -> sb_status {
    withServiceMediator(m, name, "sb_service_define") { mediator, service throws(SwitchboardError) in
        guard let interface, let text = String(validatingCString: interface) else {
            throw .invalidArgument("sb_service_define: the interface is NULL or not UTF-8")
        }
        try mediator.defineService(service, interface: text)
        return SB_OK
    }
}

@_cdecl("sb_service_bind")
public func sb_service_bind(_ m: sb_mediator_ptr?, _ name: UnsafePointer<CChar>?,
                            _ target: UnsafePointer<CChar>?) -> sb_status {
    withServiceMediator(m, name, "sb_service_bind") { mediator, service throws(SwitchboardError) in
        var bound: String?
        if let target {
            switch validName(target, "target") {
            case .success(let valid): bound = valid
            case .failure(let error): throw error
            }
        }
        try mediator.bindService(service, to: bound)
        return SB_OK
    }
}

@_cdecl("sb_service_remove")
public func sb_service_remove(_ m: sb_mediator_ptr?, _ name: UnsafePointer<CChar>?) -> sb_status {
    withServiceMediator(m, name, "sb_service_remove") { mediator, service throws(SwitchboardError) in
        guard mediator.removeService(service) else { throw .notFound("no service \(Value.string(service)) is defined") }
        return SB_OK
    }
}

@_cdecl("sb_service_perform")
public func sb_service_perform(_ m: sb_mediator_ptr?, _ name: UnsafePointer<CChar>?, _ action: UnsafePointer<CChar>?,
                               _ params: sb_value_cptr?, _ flags: CUnsignedInt, _ out: sb_value_out?) -> sb_status {
    out?.pointee = nil
    return withServiceMediator(m, name, "sb_service_perform") { mediator, service throws(SwitchboardError) in
        if case .failure(let error) = validName(action, "action") { throw error }
        guard flags & ~(SB_CACHE_TARGET | SB_NO_FALLBACK) == 0 else {
            throw .invalidArgument("sb_service_perform: unknown flags \(flags)")
        }
        if let params, Handle(params).type != SB_DICT {
            throw .typeMismatch("sb_service_perform: params must be a dict, not \(typeWithArticle(Handle(params).type))")
        }
        var result: OpaquePointer?
        let status = mediator.performServiceNative(service, action: action!, params: params ?? emptyParams,
                                                   cache: flags & SB_CACHE_TARGET != 0,
                                                   fallback: flags & SB_NO_FALLBACK == 0, out: &result,
                                                   bridge: CBridge.self)
        if let out { out.pointee = result } else if let result { Handle(result).release() }
        return sb_status(UInt32(status))
    }
}
