@_spi(Faces) import Switchboard
import CSwitchboard
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// sb_url_lookup's answer: `URLLookup.value`'s dict, {kind, scheme, target,
/// action, handler, pattern, params} (no target and action for a handler, a
/// pattern only for a pattern), made directly as `SBValue.from` makes a dict
/// (the params nested at level 1), without the Swift dict between.
///
/// A lookup should cost less than the call it looks up (scripts/bench.sh,
/// c.url_lookup), yet the call hands its C action the params alone, where
/// the lookup wraps them in a dict of seven entries. So that dict costs as
/// little as it can: its keys are laid out once per shape and copied in one
/// move, the kind is a shared string, a pattern's scheme and pattern are the
/// strings its params already hold, and the target's and action's names
/// are strings kept from the last answer when they are the same (names
/// repeat; a string value never changes, so sharing one shows nowhere).
/// Nothing else is kept between lookups: the answer is the caller's alone.
enum LookupAnswer {
    static func make(kind: URLLookup.Kind, scheme: String, target: String?, action: String?, pattern: String?,
                     params: Params) throws(SwitchboardError) -> Handle {
        let params = try Handle.from(.dict(params), level: 1)
        let named = target != nil && action != nil
        let shape = Shape(named: named, pattern: pattern != nil)
        let dict = SBValue.container(SB_DICT, capacity: Shape.largest)
        let entries = dict.dictEntries
        entries.update(from: Shape.templates + shape.offset, count: shape.count)

        // A pattern's params hold its scheme and pattern: shared, not made again.
        var shared = (scheme: Handle?.none, pattern: Handle?.none)
        if kind == .pattern, let box = params.box {
            Borrowed(box).read { p in
                let entries = p.dictEntries
                for i in 0..<p.h.pointee.count {
                    if DictEntry.hasKey(entries + i, schemeKey.utf8Start, length: schemeKey.utf8CodeUnitCount) {
                        shared.scheme = entries[i].value
                    } else if DictEntry.hasKey(entries + i, patternKey.utf8Start, length: patternKey.utf8CodeUnitCount) {
                        shared.pattern = entries[i].value
                    }
                }
            }
        }
        func string(_ text: String, _ shared: Handle?) -> Handle {
            shared?.retain() ?? Handle(retaining: .string(text))
        }
        var i = 0
        func put(_ value: Handle) {
            entries[i].value = value
            i += 1
        }
        put(KindNames.of(kind))
        put(string(scheme, shared.scheme))
        if named, let target, let action {
            put(LastName.target.string(target))
            put(LastName.action.string(action))
        }
        put(Handle.bool(!named))
        if let pattern { put(string(pattern, shared.pattern)) }
        put(params)
        assert(i == shape.count)
        dict.h.pointee.count = shape.count
        return Handle(retaining: dict)
    }

    /// Mediator.schemeKey and .patternKey, as the C keys are compared.
    private static let schemeKey: StaticString = "switchboard.scheme"
    private static let patternKey: StaticString = "switchboard.pattern"

    /// Which entries an answer has, and where their keys wait in `templates`.
    private struct Shape {
        let named: Bool
        let pattern: Bool

        static let largest = 7
        var count: Int { 4 + (named ? 2 : 0) + (pattern ? 1 : 0) }
        /// Each shape has `largest` slots in `templates`.
        var offset: Int { ((named ? 1 : 0) + (pattern ? 2 : 0)) * Self.largest }

        /// The keys of each shape, in order, with null values: what a dict
        /// `append`ing them one by one would hold (an answer is too small
        /// for an index, so no hash is set).
        nonisolated(unsafe) static let templates: UnsafeMutablePointer<DictEntry> = {
            let all = UnsafeMutablePointer<DictEntry>.allocate(capacity: 4 * largest)
            for (named, pattern) in [(false, false), (true, false), (false, true), (true, true)] {
                let shape = Shape(named: named, pattern: pattern)
                var keys: [StaticString] = ["kind", "scheme"]
                if named { keys += ["target", "action"] }
                keys.append("handler")
                if pattern { keys.append("pattern") }
                keys.append("params")
                precondition(keys.count == shape.count)
                for (i, key) in keys.enumerated() {
                    let entry = all + shape.offset + i
                    entry.initialize(to: DictEntry(hash: 0, keyLength: 0, inline: (0, 0, 0), value: .null))
                    precondition(DictEntry.store(key: key.utf8Start, length: key.utf8CodeUnitCount, in: entry))
                }
            }
            return all
        }()
    }
}

/// The lookup kinds' names as C strings, made once and shared (retained).
private enum KindNames {
    static let pattern = Handle(retaining: .string("pattern"))
    static let targets = Handle(retaining: .string("targets"))
    static let forward = Handle(retaining: .string("forward"))
    static let fallback = Handle(retaining: .string("fallback"))

    static func of(_ kind: URLLookup.Kind) -> Handle {
        switch kind {
        case .pattern: pattern.retain()
        case .targets: targets.retain()
        case .forward: forward.retain()
        case .fallback: fallback.retain()
        }
    }
}

/// The string value of the name the last answer had in one place (its
/// target, or its action), kept for the next: `Handle` bits owning one
/// reference, or 0. Whoever takes it (an exchange) uses it alone.
private enum LastName {
    static let target = Atomic<UInt>(0)
    static let action = Atomic<UInt>(0)
}

extension Atomic<UInt> {
    /// A string value of `name` (one reference, the caller's): the kept one
    /// when it has these bytes, else a new one, which is kept instead.
    fileprivate func string(_ name: String) -> Handle {
        let bits = exchange(0, ordering: .acquiring)
        var value: Handle
        if bits != 0, Handle(bits: bits).hasBytes(of: name) {
            value = Handle(bits: bits)
        } else {
            if bits != 0 { Handle(bits: bits).release() }
            value = Handle(retaining: .string(name))
        }
        let old = exchange(value.retain().bits, ordering: .acquiringAndReleasing)
        if old != 0 { Handle(bits: old).release() }
        return value
    }
}

extension Handle {
    /// Whether this is a string value of `text`'s UTF-8 bytes.
    fileprivate func hasBytes(of text: String) -> Bool {
        guard let box else { return false }
        var text = text
        return text.withUTF8 { utf8 in
            Borrowed(box).read { s in
                s.type == SB_STRING && s.h.pointee.count == utf8.count
                    && (utf8.isEmpty || memcmp(s.tailBytes, utf8.baseAddress!, utf8.count) == 0)
            }
        }
    }
}
