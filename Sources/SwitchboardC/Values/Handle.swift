@_spi(Faces) import Switchboard
import CSwitchboard

/// An `sb_value *` as the library sees it.
///
/// Small ints (61 bits), booleans and null are *immediates*: the value is the
/// pointer itself, with bit 0 set (a box is 16-byte aligned, so its address
/// never has it). Making one allocates nothing and releasing one does
/// nothing, which matters because they are most of what params and results
/// carry: callgrind put an int's allocation and release at ~350
/// instructions. The header only promises opaque handles, so callers cannot
/// tell the difference. Everything else points to an SBValue box.
///
///     bits 63...3 | 2 1 | 0
///     payload     | kind| 1      kind: 00 int, 01 bool, 10 null
struct Handle: Equatable {
    let bits: UInt

    init(bits: UInt) { self.bits = bits }

    @inline(__always)
    init(_ pointer: OpaquePointer) { bits = UInt(bitPattern: Int(bitPattern: pointer)) }

    /// A handle owning one new reference to `box`.
    @inline(__always)
    init(retaining box: SBValue) { bits = UInt(bitPattern: Unmanaged.passRetained(box).toOpaque()) }

    /// A handle borrowing `box` (no reference of its own).
    @inline(__always)
    init(borrowing box: SBValue) { bits = UInt(bitPattern: Unmanaged.passUnretained(box).toOpaque()) }

    var pointer: OpaquePointer { OpaquePointer(bitPattern: bits)! }

    // MARK: Immediates

    private static let immediateTag: UInt = 0b001
    private static let kindMask: UInt = 0b110
    private static let boolKind: UInt = 0b010
    private static let nullKind: UInt = 0b100

    static let null = Handle(bits: nullKind | immediateTag)
    static let `true` = Handle(bits: 0b1000 | boolKind | immediateTag)
    static let `false` = Handle(bits: boolKind | immediateTag)

    /// Ints in this range are immediates; others are boxed.
    static let immediateInts: ClosedRange<Int64> = -(1 << 60)...((1 << 60) - 1)

    @inline(__always)
    static func bool(_ b: Bool) -> Handle { b ? .true : .false }

    /// A new int: an immediate when it fits, else a box.
    @inline(__always)
    static func int(_ i: Int64) -> Handle {
        if immediateInts.contains(i) { return Handle(bits: UInt(bitPattern: Int(i) << 3) | immediateTag) }
        return Handle(retaining: SBValue.boxedInt(i))
    }

    @inline(__always)
    var isImmediate: Bool { bits & Self.immediateTag != 0 }

    /// The box, borrowed; nil for an immediate.
    @inline(__always)
    var box: Unmanaged<SBValue>? {
        isImmediate ? nil : Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
    }

    var type: sb_type {
        guard isImmediate else { return Borrowed(box!).read { $0.type } }
        switch bits & Self.kindMask {
        case Self.boolKind: return SB_BOOL
        case Self.nullKind: return SB_NULL
        default: return SB_INT
        }
    }

    var isContainer: Bool {
        guard let box else { return false }
        return Borrowed(box).read { $0.isContainer }
    }

    // MARK: Reference counting

    @inline(__always)
    @discardableResult
    func retain() -> Handle {
        if let box { _ = box.retain() }
        return self
    }

    @inline(__always)
    func release() {
        box?.release()
    }

    // MARK: Scalars

    /// The int, for an immediate or a boxed int; nil for anything else.
    var int: Int64? {
        if isImmediate {
            return bits & Self.kindMask == 0 ? Int64(truncatingIfNeeded: Int(bitPattern: bits) >> 3) : nil
        }
        return Borrowed(box!).read { $0.type == SB_INT ? Int64(bitPattern: $0.h.pointee.scalar) : nil }
    }

    var bool: Bool? {
        isImmediate && bits & Self.kindMask == Self.boolKind ? bits & 0b1000 != 0 : nil
    }
}

extension Handle {
    /// Deep equality as `sb_value_equal` documents it. Immediates are canonical (an
    /// int that fits is never boxed), so equal immediates have equal bits.
    func equals(_ other: Handle) -> Bool {
        switch (box, other.box) {
        case (nil, nil): return bits == other.bits
        case let (a?, b?): return Borrowed(a).read { a in Borrowed(b).read { a.equals($0) } }
        default: return false
        }
    }

    /// The Swift value of this C value.
    func toValue(level: Int = 0) throws(SwitchboardError) -> Value {
        if isImmediate {
            if let int { return .int(int) }
            if let bool { return .bool(bool) }
            return .null
        }
        let box = box!.takeUnretainedValue()
        return try box.toValue(level: level)
    }

    /// A new C value for a Swift value.
    static func from(_ value: Value, level: Int = 0) throws(SwitchboardError) -> Handle {
        switch value {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        default: return Handle(retaining: try SBValue.from(value, level: level))
        }
    }
}
