/// An interceptor's id, for ``Mediator/removeInterceptor(_:)-(InterceptorID)``.
/// The same number as the C face's (`sb_interceptor_add`) and the Lua
/// face's (`sb.intercept`) for the interceptor. Ids are unique in the
/// process: another mediator's id removes nothing.
public struct InterceptorID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number, as the C and Lua faces give it.
    public let rawValue: UInt64
    /// The id of the interceptor that the C or Lua face numbered `rawValue`.
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// "interceptor 3".
    public var description: String { "interceptor \(rawValue)" }
}

/// An observer's id, for ``Mediator/removeObserver(_:)-(ObserverID)``. The
/// same number as the C face's (`sb_observer_add`) and the Lua face's
/// (`sb.observe`). Ids are unique in the process: another mediator's id
/// removes nothing.
public struct ObserverID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number, as the C and Lua faces give it.
    public let rawValue: UInt64
    /// The id of the observer that the C or Lua face numbered `rawValue`.
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// "observer 3".
    public var description: String { "observer \(rawValue)" }
}

extension Mediator {
    /// Removes an interceptor by its bare number (1.x); use the
    /// `InterceptorID` form.
    @available(*, deprecated, message: "interceptor ids are InterceptorID: removeInterceptor(InterceptorID(rawValue: id))")
    @discardableResult
    public func removeInterceptor(_ id: UInt64) -> Bool { removeInterceptor(InterceptorID(rawValue: id)) }

    /// Removes an observer by its bare number (1.x); use the `ObserverID`
    /// form.
    @available(*, deprecated, message: "observer ids are ObserverID: removeObserver(ObserverID(rawValue: id))")
    @discardableResult
    public func removeObserver(_ id: UInt64) -> Bool { removeObserver(ObserverID(rawValue: id)) }
}
