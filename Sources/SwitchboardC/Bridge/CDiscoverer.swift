@_spi(Faces) import Switchboard
import CSwitchboard

/// A C discoverer (`sb_discoverer_add`) as a core target provider: asked for
/// names the mediator does not know, it registers them itself.
final class CDiscoverer: TargetProvider, @unchecked Sendable {
    // @unchecked: immutable; what userdata points to is the C code's to guard.

    private let fn: sb_discoverer_fn
    private let userdata: UnsafeMutableRawPointer?
    private let freeUserdata: sb_destroy_fn?
    /// The mediator's handle, unretained: the mediator owns this provider.
    private let mediator: OpaquePointer

    init(fn: sb_discoverer_fn, userdata: UnsafeMutableRawPointer?, freeUserdata: sb_destroy_fn?, mediator: OpaquePointer) {
        self.fn = fn
        self.userdata = userdata
        self.freeUserdata = freeUserdata
        self.mediator = mediator
    }

    deinit { freeUserdata?(userdata) }

    /// Always nil: a discoverer registers what it finds, and the mediator
    /// looks the name up again.
    func targetClass(named name: String) throws(SwitchboardError) -> ForeignTargetClass? {
        let status = name.withCString { fn(userdata, mediator, $0) }
        guard status == SB_OK || status == SB_ENOTARGET else {
            throw SwitchboardError(status: Int32(bitPattern: status.rawValue))
        }
        return nil
    }
}
