import Synchronization

/// An object made at its first use and kept for the process's life, read
/// through one atomic word.
///
/// A global `static let` of a class instance is lazy: each read calls
/// `swift_once`, about ten instructions, where this is a load and a test.
/// For objects every asynchronous answer reaches several times (the
/// completion table). Two threads that meet at the first use may both make
/// one; the first published wins and the other is let go.
struct MadeOnce<Object: AnyObject>: ~Copyable, @unchecked Sendable {
    // @unchecked: the word is atomic, and what it points to lives for ever.
    private let word = Atomic<UInt>(0)

    init() {}

    /// The object, made by `make` if it is not yet.
    @inline(__always)
    func get(_ make: () -> Object) -> Borrowed<Object> {
        let bits = word.load(ordering: .acquiring)
        if bits != 0 { return Borrowed(bits: bits) }
        return publish(make())
    }

    @inline(never)
    private func publish(_ made: Object) -> Borrowed<Object> {
        let bits = UInt(bitPattern: Unmanaged.passRetained(made).toOpaque())
        let (exchanged, original) = word.compareExchange(expected: 0, desired: bits, ordering: .acquiringAndReleasing)
        guard exchanged else {
            Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release()
            return Borrowed(bits: original)
        }
        return Borrowed(bits: bits)
    }
}
