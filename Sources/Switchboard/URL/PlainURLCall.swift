// The plain URL call of another face, made from the URL's bytes.
//
// Most URL calls are `scheme://target/action?k=v` of a scheme connected to
// `.targets`, on a mediator with no route pattern, no hook, no call option,
// no params beside the URL and a policy that lists no targets. For those the
// general path (RemoteURL's strings and Params, URLRouter.resolve's
// Destination, then the bridge converting Params to a native dict) did work
// that cost three times the call itself. Here the URL is split by the same
// grammar, its names are decoded into a scratch buffer and looked up as
// bytes, and the face builds its params dict straight from the query.
//
// It takes only calls the general path would make the same way, and hands
// everything else back (nil) before anything has happened: a URL the grammar
// refuses, a user or port, not exactly one path segment, a scheme the policy
// or its connector does not send to targets, a name that decodes to anything
// but ASCII without NUL, "." or "..", a `native*` action, a module key, a
// repeated key, a face that cannot build the dict. The general path then
// answers as it always has, with its messages and its observer calls.
// PlainURLCallTests compares the two. (The URL fuzzer's mediator has URL
// patterns, so it reaches only the general path.)

/// A face that builds its native params dict from a URL's query bytes (the
/// C face). Its dicts are native values of the face's ``ForeignBridge``,
/// released with it.
@_spi(Faces) public protocol ForeignURLParams {
    /// A new empty dict, or nil.
    static func newDict() -> OpaquePointer?
    /// Adds the string `value` under `key` (both ASCII, no NUL). False when
    /// `key` is in the dict already (a repeated key makes an array: the
    /// general path's work) or memory ran out.
    static func add(to dict: OpaquePointer, key: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Bool
}

extension Mediator {
    /// Performs the URL `bytes` (UTF-8, at most ``RemoteURL/maximumLength``,
    /// without NUL) as a plain call to a target, as ``openNative(url:extra:options:out:bridge:)``
    /// would with no extra params; or returns nil, having done nothing, when
    /// it is not one (see above): the face then calls `openNative`. The URL
    /// is made into a string only when nothing answers the call (the
    /// fallback's params carry it).
    @_spi(Faces) public func openPlain(url bytes: UnsafeBufferPointer<UInt8>, options: CallOptions?,
                                       out: UnsafeMutablePointer<OpaquePointer?>, bridge: any ForeignBridge.Type,
                                       params: any ForeignURLParams.Type) -> Int32? {
        // A signed URL is verified on its text; hooks and options take the
        // intercepted path.
        guard !hasHooks, !urls.signs, options.map({ $0.isPlain }) ?? true else { return nil }
        let record = pins.enterCall()
        defer { pins.leaveCall(record) }
        // Too deep: openNative says so, in its words.
        guard !CallDepth.exceeded(record) else { return nil }
        var convention = ForeignConvention(bridge: bridge, out: out)
        convention.urlBytes = bytes
        guard case .success(let grammar) = URLGrammar.split(bytes, quoted: { "" }),
              !grammar.hasUserOrPort, let actionRange = PlainURL.onlySegment(bytes, grammar.path),
              urls.routesToTargets(scheme: UnsafeBufferPointer(rebasing: bytes[grammar.scheme]))
        else { return nil }
        let cache = options?.cacheTarget ?? false
        let status: Int32?
        if grammar.escapes {
            // Decoded text is never longer than the text: one buffer holds
            // the host, the action and any one query pair.
            status = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { scratch in
                openPlain(record, bytes, grammar, actionRange, scratch: scratch.baseAddress, cache: cache,
                          via: convention, params: params)
            }
        } else {
            status = openPlain(record, bytes, grammar, actionRange, scratch: nil, cache: cache, via: convention,
                               params: params)
        }
        // As openNative: a refusal because the action is `local` is the URL policy's too.
        if let status, status != 0, LocalRefusal.take(), let error = convention.failure(of: status) {
            urls.report(String(decoding: bytes, as: UTF8.self), error.message)
        }
        return status
    }

    private func openPlain(_ record: ThreadRecord, _ bytes: UnsafeBufferPointer<UInt8>, _ grammar: URLGrammar,
                           _ actionRange: Range<Int>, scratch: UnsafeMutablePointer<UInt8>?, cache: Bool,
                           via convention: ForeignConvention, params: any ForeignURLParams.Type) -> Int32? {
        var used = 0
        guard let host = PlainURL.decoded(bytes, grammar.host, literal: false, scratch, &used),
              let action = PlainURL.decoded(bytes, actionRange, literal: grammar.literalPath, scratch, &used),
              !PlainURL.isDot(host), !PlainURL.isDot(action), !PlainURL.isNative(action)
        else { return nil }
        let target = NameRef(host)
        let actionName = NameRef(action)
        guard NameCheck.problem(with: target, kind: "") == nil, NameCheck.problem(with: actionName, kind: "") == nil,
              let dict = PlainURL.query(bytes, grammar.query, literal: grammar.literalQuery,
                                        scratch: scratch.map { $0 + used }, params: params, bridge: convention.bridge)
        else { return nil }
        defer { convention.bridge.release(dict) }
        return planned(record, target, as: target, actionName, args: dict, cache: cache, fallback: true,
                               via: convention)
    }
}

/// The byte-level pieces of the plain URL call.
enum PlainURL {
    /// The one segment of `path` (one trailing slash allowed), or nil.
    static func onlySegment(_ bytes: UnsafeBufferPointer<UInt8>, _ path: Range<Int>) -> Range<Int>? {
        let slash = UInt8(ascii: "/")
        guard path.count >= 2, bytes[path.lowerBound] == slash else { return nil }
        let start = path.lowerBound + 1
        var end = path.upperBound
        if bytes[end - 1] == slash { end -= 1 }
        guard end > start else { return nil }
        for k in start..<end where bytes[k] == slash { return nil }
        return start..<end
    }

    /// The bytes `range` stands for: as they are when `literal` or without
    /// escapes, else decoded into `scratch` past `used` (which grows). Nil
    /// when they decode to a NUL or to anything beyond ASCII (the general
    /// path checks UTF-8 and says what is wrong).
    @inline(__always)
    static func decoded(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, literal: Bool,
                        _ scratch: UnsafeMutablePointer<UInt8>?, _ used: inout Int) -> UnsafeBufferPointer<UInt8>? {
        let piece = UnsafeBufferPointer(rebasing: bytes[range])
        guard !literal, let scratch, piece.contains(UInt8(ascii: "%")) else { return piece }
        let out = scratch + used
        let (count, sawNUL) = RemoteURL.unescape(piece, into: out)
        guard !sawNUL else { return nil }
        for k in 0..<count where out[k] >= 0x80 { return nil }
        used += count
        return UnsafeBufferPointer(start: out, count: count)
    }

    /// "." or "..".
    static func isDot(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        (name.count == 1 || name.count == 2) && !name.contains { $0 != UInt8(ascii: ".") }
    }

    /// Starts with "native" in any ASCII case (URLRouter's rule).
    static func isNative(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.count >= 6 else { return false }
        for (i, c) in "native".utf8.enumerated() where ASCII.lower(name[i]) != c { return false }
        return true
    }

    /// One of the params keys that name a module, which a URL may not set.
    static func isModuleKey(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        // Nor any key of the library's (Mediator.reservedKeyPrefix).
        if key.starts(with: Mediator.reservedKeyPrefix.utf8) { return true }
        return switch key.count {
        case Mediator.moduleKeyLength: key.elementsEqual(Mediator.moduleKey.utf8)
        case Mediator.ctMediatorModuleKeyLength: key.elementsEqual(Mediator.ctMediatorModuleKey.utf8)
        default: false
        }
    }

    /// The face's dict of the query: split on `&` and the first `=`, empty
    /// pairs skipped, as RemoteURL splits it. Nil (nothing left allocated)
    /// when a pair is not for this path.
    static func query(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, literal: Bool,
                      scratch: UnsafeMutablePointer<UInt8>?, params: any ForeignURLParams.Type,
                      bridge: any ForeignBridge.Type) -> OpaquePointer? {
        guard let dict = params.newDict() else { return nil }
        var start = range.lowerBound
        while start < range.upperBound {
            var stop = start
            var equals = -1
            while stop < range.upperBound && bytes[stop] != UInt8(ascii: "&") {
                if equals < 0 && bytes[stop] == UInt8(ascii: "=") { equals = stop }
                stop += 1
            }
            if stop > start {
                var used = 0 // each pair reuses the scratch
                guard let key = decoded(bytes, start..<(equals < 0 ? stop : equals), literal: literal, scratch, &used),
                      let value = decoded(bytes, equals < 0 ? stop..<stop : (equals + 1)..<stop, literal: literal,
                                          scratch, &used),
                      !isModuleKey(key), params.add(to: dict, key: key, value: value)
                else {
                    bridge.release(dict)
                    return nil
                }
            }
            start = stop + 1
        }
        return dict
    }
}
