/// A placeholder type registered by name (URLNavigator's value
/// converters): `<type:name>` matches a segment when the converter gives a
/// value for it, and that value is captured under `name`.
///
/// A converter is user code run while a URL is matched: the router calls it
/// outside its lock, as one more call level of the thread (so a converter
/// that opens URLs meets the call-depth limit), at most
/// ``PatternTrie/maximumConversions`` times per URL, and only for segments
/// a walk of the trie reaches in precedence order (a literal or a built-in
/// type that matches first means the converter is never asked). A lookup
/// runs converters too: they should answer without side effects.
final class URLConverter: Sendable {
    let type: String
    private let body: @Sendable (String) throws(SwitchboardError) -> Value?
    /// The function another face gave, so that its owner removes only its own.
    let foreign: ForeignFunction?

    init(type: String, foreign: ForeignFunction? = nil, _ body: @escaping @Sendable (String) throws(SwitchboardError) -> Value?) {
        self.type = type
        self.foreign = foreign
        self.body = body
    }

    /// The converter's value for the decoded `segment`, or nil when it
    /// declines (nil or null). Its failure fails the URL call.
    func convert(_ segment: String) throws(SwitchboardError) -> Value? {
        let value = try CallDepth.entering("the URL converter \(Value.string(type))") { () throws(SwitchboardError) in
            try CallDepth.pins.unpinned { () throws(SwitchboardError) -> Value? in try body(segment) }
        }
        if case .null? = value { return nil }
        return value
    }
}

/// Where the URL router sends a URL, found without calling anything
/// (``Mediator/lookup(url:)``): JLRoutes' `canRouteURL:`, URLNavigator's
/// `handler(for:)`.
public struct URLLookup: Sendable, Equatable {
    /// What chose the destination.
    public enum Kind: String, Sendable {
        /// A route pattern matched (``pattern`` says which).
        case pattern
        /// The scheme's connector to targets: `scheme://target/action`.
        case targets
        /// The scheme's forward connector or handler, which gets the whole URL.
        case forward
        /// Nothing matched: the unmatched-URL fallback of the scheme, or of every scheme.
        case fallback
    }

    /// What chose the destination.
    public let kind: Kind
    /// The scheme, in lower case.
    public let scheme: String
    /// The target; nil when a function another face gave answers (a
    /// scheme's, a pattern's or a fallback's handler: no name reaches it).
    public let target: String?
    /// The action; nil when ``target`` is.
    public let action: String?
    /// For `.pattern`: the text the pattern was registered with.
    public let pattern: String?
    /// The params the call would get from the URL (params passed beside it
    /// are laid over them when it is opened).
    public let params: Params

    /// As C and Lua see it: `{kind, scheme, target?, action?, handler,
    /// pattern?, params}`.
    public var value: Value {
        var dict: Params = ["kind": .string(kind.rawValue), "scheme": .string(scheme)]
        if let target, let action {
            dict["target"] = .string(target)
            dict["action"] = .string(action)
        }
        dict["handler"] = .bool(target == nil)
        if let pattern { dict["pattern"] = .string(pattern) }
        dict["params"] = .dict(params)
        return .dict(dict)
    }
}
