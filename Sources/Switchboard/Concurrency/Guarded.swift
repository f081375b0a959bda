import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A `Synchronization.Mutex` that ThreadSanitizer can see.
///
/// On Linux, Mutex locks and unlocks a contended lock in the kernel (a
/// priority-inheritance futex), where ThreadSanitizer cannot follow: a value
/// handed from one thread to another under a contended Mutex is reported as
/// a race in correct code (CI saw five). Guarded keeps what Mutex gives — in
/// place, no allocation or set-up per object — and, when the process runs
/// under ThreadSanitizer, tells it "acquired" and "released" around the body
/// with the sanitizer's own annotations. Elsewhere the annotations are
/// absent, and each side costs a load and a test.
///
/// The rule (scripts/check-sources.sh): no `Mutex` outside this file.
@_spi(Faces) public struct Guarded<Value: ~Copyable>: ~Copyable, Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with the value, under the lock (`Mutex.withLock`).
    @inline(__always)
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        // The Mutex's place is the lock's identity for the sanitizer: it stays
        // put while the Mutex lives, and is never read through. Taken from
        // the lock, not from the value: an access to the value before
        // "acquired" is told is what the sanitizer reports as a race (CI saw
        // one, when two threads met on a service's instance).
        guard let annotations = SanitizerAnnotations.present else {
            return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in try body(&value) }
        }
        let place = withUnsafePointer(to: mutex) { UnsafeRawPointer($0) }
        return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            annotations.acquire(place)
            defer { annotations.release(place) }
            return try body(&value)
        }
    }
}

/// ThreadSanitizer's `__tsan_acquire` and `__tsan_release`, found once at run
/// time: a sanitized program exports them, any other has none. (Looked up,
/// not linked: the shipped library must not need the sanitizer.)
struct SanitizerAnnotations: @unchecked Sendable {
    // @unchecked: two C function pointers, set once.
    typealias Annotation = @convention(c) (UnsafeRawPointer?) -> Void
    let acquire: Annotation
    let release: Annotation

    static let present: SanitizerAnnotations? = {
        guard let acquire = dlsym(nil, "__tsan_acquire"), let release = dlsym(nil, "__tsan_release") else {
            return nil
        }
        return SanitizerAnnotations(acquire: unsafeBitCast(acquire, to: Annotation.self),
                                    release: unsafeBitCast(release, to: Annotation.self))
    }()
}
