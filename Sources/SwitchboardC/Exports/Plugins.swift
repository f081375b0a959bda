@_spi(Faces) import Switchboard
import CSwitchboard

@_cdecl("sb_load_plugin")
public func sb_load_plugin(_ m: sb_mediator_ptr?, _ path: UnsafePointer<CChar>?) -> sb_status {
    guard let m, let path, path.pointee != 0 else {
        return failure(SB_EINVAL, "sb_load_plugin: NULL mediator, or a NULL or empty path")
    }
    do throws(SwitchboardError) {
        try CMediator.borrow(m).takeUnretainedValue().plugins.load(String(cString: path))
        return SB_OK
    } catch {
        return failure(error)
    }
}
