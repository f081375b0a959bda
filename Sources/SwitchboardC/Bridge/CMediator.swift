@_spi(Faces) import Switchboard
import CSwitchboard

/// The object behind an `sb_mediator *`: a core mediator and the plugins
/// loaded into it.
final class CMediator: Sendable {
    let mediator: Mediator
    let plugins = PluginShelf()
    /// The plugins' provider id, which sb_discoverer_remove must not remove.
    let pluginsProvider: UInt64

    init(_ mediator: Mediator) {
        self.mediator = mediator
        pluginsProvider = mediator.addProvider(plugins)
    }

    /// The process-wide one, around `Mediator.shared`.
    static let shared = CMediator(Mediator.shared)

    @inline(__always)
    static func borrow(_ handle: OpaquePointer) -> Unmanaged<CMediator> {
        Unmanaged.fromOpaque(UnsafeRawPointer(handle))
    }

    var isShared: Bool { self === CMediator.shared }
}
