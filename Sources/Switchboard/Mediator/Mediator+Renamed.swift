// The 1.x spellings of what 2.0 renamed (CHANGELOG.md lists each).
//
// Calls that wait on their thread are named `...AndWait` (Core Data's
// `performAndWait` beside `perform`): with the blocking and the awaitable
// form under one name, top-level code (main.swift) ranks overloads as if it
// were synchronous, so `try await m.call(...)` silently ran the blocking one
// (EWOULDBLOCK for an async action) and `await m.perform(...)` returned
// `.null`. The old blocking spellings stay for Swift 5 language mode,
// deprecated with a fix-it; in Swift 6 mode they are obsoleted, so that the
// compiler picks the awaitable form wherever `await` is written (a blocking
// call in synchronous Swift 6 code then reads "'async' call in a function
// that does not support concurrency": rename it to `...AndWait`).
//
// The nouns follow the C face (issue 39): `evict` a cached instance, a
// "route" is a prepared call, and URL patterns are "URL patterns".

extension Mediator {
    /// The 1.x name of `performAndWait(target:action:params:cacheTarget:)`,
    /// kept for Swift 5 language mode.
    @available(*, deprecated, renamed: "performAndWait(target:action:params:cacheTarget:)")
    @available(swift, obsoleted: 6, renamed: "performAndWait(target:action:params:cacheTarget:)")
    @discardableResult
    public func perform(target: String, action: String, params: Params = [:], cacheTarget: Bool = false) -> Value {
        performAndWait(target: target, action: action, params: params, cacheTarget: cacheTarget)
    }

    /// The 1.x name of `performAndWait(target:action:params:options:)`,
    /// kept for Swift 5 language mode.
    @available(*, deprecated, renamed: "performAndWait(target:action:params:options:)")
    @available(swift, obsoleted: 6, renamed: "performAndWait(target:action:params:options:)")
    @discardableResult
    public func perform(target: String, action: String, params: Params = [:], options: CallOptions) -> Value {
        performAndWait(target: target, action: action, params: params, options: options)
    }

    /// The 1.x name of `callAndWait(target:action:params:cacheTarget:)`,
    /// kept for Swift 5 language mode.
    @available(*, deprecated, renamed: "callAndWait(target:action:params:cacheTarget:)")
    @available(swift, obsoleted: 6, renamed: "callAndWait(target:action:params:cacheTarget:)")
    public func call(target: String, action: String, params: Params = [:],
                     cacheTarget: Bool = false) throws(SwitchboardError) -> Value {
        try callAndWait(target: target, action: action, params: params, cacheTarget: cacheTarget)
    }

    /// The 1.x name of `callAndWait(target:action:params:options:)`, kept
    /// for Swift 5 language mode.
    @available(*, deprecated, renamed: "callAndWait(target:action:params:options:)")
    @available(swift, obsoleted: 6, renamed: "callAndWait(target:action:params:options:)")
    public func call(target: String, action: String, params: Params = [:],
                     options: CallOptions) throws(SwitchboardError) -> Value {
        try callAndWait(target: target, action: action, params: params, options: options)
    }

    /// The 1.x name of `openAndWait(_:params:options:completion:)`, kept
    /// for Swift 5 language mode.
    @available(*, deprecated, renamed: "openAndWait(_:params:options:completion:)")
    @available(swift, obsoleted: 6, renamed: "openAndWait(_:params:options:completion:)")
    @discardableResult
    public func open(_ url: String, params: Params = [:], options: CallOptions = .none,
                     completion: (@Sendable (Value) -> Void)? = nil) -> Value {
        openAndWait(url, params: params, options: options, completion: completion)
    }

    /// The 1.x name of `callAndWait(url:params:options:)`, kept for Swift 5
    /// language mode.
    @available(*, deprecated, renamed: "callAndWait(url:params:options:)")
    @available(swift, obsoleted: 6, renamed: "callAndWait(url:params:options:)")
    public func call(url: String, params: Params = [:], options: CallOptions = .none) throws(SwitchboardError) -> Value {
        try callAndWait(url: url, params: params, options: options)
    }

    /// The 1.x name of `callServiceAndWait(_:action:params:cacheTarget:)`,
    /// kept for Swift 5 language mode.
    @available(*, deprecated, renamed: "callServiceAndWait(_:action:params:cacheTarget:)")
    @available(swift, obsoleted: 6, renamed: "callServiceAndWait(_:action:params:cacheTarget:)")
    public func callService(_ name: String, action: String, params: Params = [:],
                            cacheTarget: Bool = false) throws(SwitchboardError) -> Value {
        try callServiceAndWait(name, action: action, params: params, cacheTarget: cacheTarget)
    }

    /// The 1.x name of `evict(target:)`.
    @available(*, deprecated, renamed: "evict(target:)")
    @discardableResult
    public func releaseCachedTarget(_ target: String) -> Bool {
        evict(target: target)
    }

    /// The 1.x name of `addURLPattern(_:target:action:)`.
    @available(*, deprecated, renamed: "addURLPattern(_:target:action:)")
    public func addRoute(pattern: String, target: String, action: String) throws(SwitchboardError) {
        try addURLPattern(pattern, target: target, action: action)
    }

    /// The 1.x name of `removeURLPattern(_:)`.
    @available(*, deprecated, renamed: "removeURLPattern(_:)")
    @discardableResult
    public func removeRoute(pattern: String) -> Bool {
        removeURLPattern(pattern)
    }
}

extension Route {
    /// The 1.x name of `callAndWait(_:)`, kept for Swift 5 language mode.
    @available(*, deprecated, renamed: "callAndWait(_:)")
    @available(swift, obsoleted: 6, renamed: "callAndWait(_:)")
    public func call(_ params: Params = [:]) throws(SwitchboardError) -> Value {
        try callAndWait(params)
    }
}
