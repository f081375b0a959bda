// Versioned structs (switchboard.h, "Versioned structs"): a struct a caller
// fills starts with `int version`; the library reads only the fields that
// version has, and refuses a version below 1 or above the one it knows.

/// Why `version` of the struct `name` cannot be read (nil when it can),
/// in the same words for every versioned struct.
func versionProblem(_ name: String, _ version: CInt, known: CInt) -> String? {
    if version < 1 {
        return "\(name) version \(version) is not a version (start from its _INIT macro, or set it to its _VERSION)"
    }
    if version > known { return "\(name) version \(version) is newer than this library (\(known))" }
    return nil
}

/// A copy of the first `size` bytes at `source`, the rest of the struct
/// zeroed: how a struct of an older, shorter version is read without
/// touching memory past its end.
func versionedCopy<T>(of source: UnsafeRawPointer, size: Int, zero: T) -> T {
    var copy = zero
    withUnsafeMutableBytes(of: &copy) { bytes in
        bytes.copyMemory(from: UnsafeRawBufferPointer(start: source, count: min(size, bytes.count)))
    }
    return copy
}
