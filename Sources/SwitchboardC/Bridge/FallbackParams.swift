@_spi(Faces) import Switchboard
import CSwitchboard
import Synchronization

/// The params of a fallback (NoTargetAction, a degrade rule's target, the
/// degrade handler) for C callers: `originParams`, then the strings of
/// ``FallbackCall``, in that order.
///
/// A dict and four or five strings cost more to make and free than the
/// rest of a missed call (callgrind, c.miss), and a program that misses
/// usually misses the same way again. So the dict of a finished call is
/// kept when nobody else holds it (a fallback that kept its params, or
/// holds them elsewhere, keeps them as they were), without the caller's
/// params: the next call finds there the strings it would make, makes only
/// those that differ, and puts its own `originParams` in.
enum FallbackParams {
    /// A dict nothing else holds or contains, whose `originParams` is null or
    /// an empty dict of its own: `Unmanaged<SBValue>` bits owning one
    /// reference, or 0. One for every mediator and thread: whoever takes it
    /// (an exchange) uses it alone.
    private static let spare = Atomic<UInt>(0)

    static func make(origin: OpaquePointer?, call: FallbackCall) throws(SwitchboardError) -> OpaquePointer {
        let params: Unmanaged<SBValue>
        if let kept = takeSpare(for: call) {
            params = kept
        } else {
            params = Unmanaged.passRetained(try fresh(call))
        }
        if let problem = Borrowed(params).read({ setOrigin(origin, in: $0) }) {
            params.release()
            throw .invalidArgument("NoTargetAction params: originParams: \(problem)")
        }
        return OpaquePointer(params.toOpaque())
    }

    /// Gives back params from `make` after the call: kept for the next call
    /// when nothing else holds them, else released.
    static func release(_ pointer: OpaquePointer) {
        guard let params = Handle(pointer).box else { return }
        let kept = Borrowed(params).read { p -> Bool in
            let entries = p.h.pointee.count
            guard p.type == SB_DICT, entries == 5 || entries == 6, isUnique(p) else { return false }
            // What another thread did with these values before letting them
            // go comes before what this one reads and does with them now.
            atomicMemoryFence(ordering: .acquiring)
            // Only the shape `fresh` makes is kept: a fallback that broke the
            // rule that args are read-only may have added a key (a plain
            // call's dict would pass for a URL call's) or put a value there
            // (a container or pointer the spare must not keep alive).
            guard hasFreshShape(p, fields: entries - 1) else { return false }
            let origin = p.dictEntries[0].value
            let keepOrigin = origin.box.map { o in
                Borrowed(o).read { $0.type == SB_DICT && $0.h.pointee.count == 0 && isUnique($0) }
            } ?? false
            if !keepOrigin {
                // The caller's params leave (and their depth with them).
                p.dictEntries[0].value = .null
                p.dropChild(origin)
            }
            return true
        }
        guard kept else { return params.release() }
        let old = spare.exchange(UInt(bitPattern: params.toOpaque()), ordering: .acquiringAndReleasing)
        if old != 0 { Unmanaged<SBValue>.fromOpaque(UnsafeRawPointer(bitPattern: old)!).release() }
    }

    /// Whether `params` has the keys `fresh` sets for `fields` (4 or 5)
    /// fields, in order, each field a string. Unrolled, so that each key is
    /// compared with a constant.
    private static func hasFreshShape(_ params: SBValue, fields: Int) -> Bool {
        let entries = params.dictEntries
        return keyIs(entries, "originParams") && isField(entries + 1, 0) && isField(entries + 2, 1)
            && isField(entries + 3, 2) && isField(entries + 4, 3) && (fields == 4 || isField(entries + 5, 4))
    }

    /// Whether `entry` has field `i`'s key and a string value.
    @inline(__always)
    private static func isField(_ entry: UnsafeMutablePointer<DictEntry>, _ i: Int) -> Bool {
        keyIs(entry, FallbackCall.key(i)) && entry.pointee.value.box.map({ Borrowed($0).read { $0.type == SB_STRING } }) == true
    }

    @inline(__always)
    private static func keyIs(_ entry: UnsafeMutablePointer<DictEntry>, _ key: StaticString) -> Bool {
        entry.pointee.keyLength == key.utf8CodeUnitCount
            && bytesEqual(DictEntry.key(entry), key.utf8Start, count: key.utf8CodeUnitCount)
    }

    /// The spare dict, its strings now those of `call`; nil when there is
    /// none or it has another shape (a URL call has one more field).
    private static func takeSpare(for call: FallbackCall) -> Unmanaged<SBValue>? {
        let bits = spare.exchange(0, ordering: .acquiring)
        guard bits != 0 else { return nil }
        let params = Unmanaged<SBValue>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
        guard Borrowed(params).read({ refill($0, for: call) }) else {
            params.release()
            return nil
        }
        return params
    }

    /// Makes the strings of `params` those of `call`, making only those
    /// that differ; false if it has another shape or memory runs out.
    private static func refill(_ params: SBValue, for call: FallbackCall) -> Bool {
        let fields = call.fieldCount
        guard params.h.pointee.count == 1 + fields else { return false }
        // The keys are those `fresh` set: a dict only ever gains keys, and
        // its count is the same.
        let entries = params.dictEntries + 1
        let differing = withUnsafeTemporaryAllocation(of: UnsafeBufferPointer<UInt8>.self, capacity: 5) { values in
            // Every value is a string (`release` keeps no other); one that
            // is not would be made again, whatever it is compared with.
            var notStrings: UInt32 = 0
            for i in 0..<fields {
                let string = entries[i].value.box.flatMap { box in Borrowed(box).read { s in
                    s.type == SB_STRING ? UnsafeBufferPointer(start: s.tailBytes, count: s.h.pointee.count) : nil
                } }
                if string == nil { notStrings |= 1 << i }
                (values.baseAddress! + i).initialize(to: string ?? UnsafeBufferPointer(start: nil, count: 0))
            }
            return call.fieldsDiffering(from: values.baseAddress!) | notStrings
        }
        guard differing != 0 else { return true }
        for i in 0..<fields where differing & (1 << i) != 0 {
            guard let string = makeField(i, of: call) else { return false }
            let old = entries[i].value
            entries[i].value = string
            params.dropChild(old)
        }
        return true
    }

    /// New params for `call`, with `originParams` null for now.
    private static func fresh(_ call: FallbackCall) throws(SwitchboardError) -> SBValue {
        // Room for every entry in the box itself: one allocation for the dict.
        let params = SBValue.container(SB_DICT, capacity: 1 + call.fieldCount)
        let originKey: StaticString = "originParams"
        guard params.set(key: originKey.utf8Start, length: originKey.utf8CodeUnitCount, value: .null) else {
            throw .outOfMemory("out of memory building NoTargetAction params")
        }
        for i in 0..<call.fieldCount {
            let key = FallbackCall.key(i)
            guard let string = makeField(i, of: call) else {
                throw .outOfMemory("out of memory building NoTargetAction params")
            }
            // What was stored goes with `params`, which ARC frees.
            guard params.set(key: key.utf8Start, length: key.utf8CodeUnitCount, value: string) else {
                string.release()
                throw .outOfMemory("out of memory building NoTargetAction params")
            }
        }
        return params
    }

    /// A new string value for field `i` of `call`.
    private static func makeField(_ i: Int, of call: FallbackCall) -> Handle? {
        var made: Handle?
        _ = call.withField(i) { _, value in
            made = Handle(retaining: SBValue.bytes(UnsafeRawBufferPointer(value), as: SB_STRING))
            return true
        }
        return made
    }

    /// Puts `origin` (the caller's params, or an empty dict for none) in as
    /// `originParams`; nil, or why it may not go in. An empty dict the
    /// params kept from a call without params stays.
    private static func setOrigin(_ origin: OpaquePointer?, in params: SBValue) -> String? {
        let entry = params.dictEntries
        let value: Handle
        if let origin {
            value = Handle(origin).retain()
        } else if entry[0].value != .null {
            return nil
        } else {
            value = Handle(retaining: SBValue.container(SB_DICT))
        }
        if let box = value.box, let problem = Borrowed(box).read({ item in
            item.isContainer ? Nesting.admit(item, into: params) : nil
        }) {
            value.release()
            return problem
        }
        let old = entry[0].value
        entry[0].value = value
        params.dropChild(old)
        return nil
    }

    /// Whether `value` has no other reference than the one its caller
    /// holds. (`isKnownUniquelyReferenced` needs a strong variable, which
    /// costs a retain and a release here.)
    @inline(__always)
    private static func isUnique(_ value: SBValue) -> Bool {
        var object = Unmanaged.passUnretained(value).takeRetainedValue()
        let unique = isKnownUniquelyReferenced(&object)
        _ = Unmanaged.passUnretained(object).retain() // `object` gives back the reference it took
        return unique
    }
}
