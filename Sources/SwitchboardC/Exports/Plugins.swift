@_spi(Faces) import Switchboard
import CSwitchboard

@_cdecl("sb_plugin_load")
public func sb_plugin_load(_ m: sb_mediator_ptr?, _ path: UnsafePointer<CChar>?) -> sb_status {
    guard let m, let path, path.pointee != 0 else {
        return failure(SB_EINVAL, "sb_plugin_load: NULL mediator, or a NULL or empty path")
    }
    // Paths travel as Strings: one that is not UTF-8 would be repaired into
    // another path, so it is refused.
    guard let text = String(validatingCString: path) else {
        return failure(SB_EINVAL, "sb_plugin_load: the path is not valid UTF-8")
    }
    do throws(SwitchboardError) {
        let owner = CMediator.borrow(m).takeUnretainedValue()
        try owner.plugins.load(text)
        // Names its tables define were perhaps looked for in vain before.
        owner.mediator.providersChanged()
        return SB_OK
    } catch {
        return failure(error)
    }
}
