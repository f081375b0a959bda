@_spi(Faces) import Switchboard
import CSwitchboard
#if canImport(Glibc)
import Glibc
#endif

// Constructors, reference counting and getters (switchboard.h, "values").
// Null, booleans and ints that fit 61 bits are immediates (see Handle).

@_cdecl("sb_null")
public func sb_null() -> sb_value_ptr? { Handle.null.pointer }

@_cdecl("sb_bool")
public func sb_bool(_ b: CInt) -> sb_value_ptr? { Handle.bool(b != 0).pointer }

@_cdecl("sb_int")
public func sb_int(_ i: Int64) -> sb_value_ptr? { Handle.int(i).pointer }

@_cdecl("sb_double")
public func sb_double(_ d: Double) -> sb_value_ptr? { Handle(retaining: SBValue.double(d)).pointer }

@_cdecl("sb_string")
public func sb_string(_ utf8: UnsafePointer<CChar>?) -> sb_value_ptr? {
    guard let utf8 else { _ = failure(SB_EINVAL, "sb_string: NULL string"); return nil }
    return makeString(UnsafeRawPointer(utf8), strlen(utf8), caller: "sb_string")
}

@_cdecl("sb_string_n")
public func sb_string_n(_ s: UnsafePointer<CChar>?, _ n: size_t) -> sb_value_ptr? {
    guard let s else {
        if n == 0 { return Handle(retaining: SBValue.bytes(UnsafeRawBufferPointer(start: nil, count: 0), as: SB_STRING)).pointer }
        _ = failure(SB_EINVAL, "sb_string_n: NULL string with length \(n)")
        return nil
    }
    return makeString(UnsafeRawPointer(s), n, caller: "sb_string_n")
}

private func makeString(_ start: UnsafeRawPointer, _ count: Int, caller: String) -> sb_value_ptr? {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    guard isValidUTF8(bytes.bindMemory(to: UInt8.self)) else {
        _ = failure(SB_EINVAL, "\(caller): not valid UTF-8 (use sb_bytes for arbitrary bytes)")
        return nil
    }
    return Handle(retaining: SBValue.bytes(bytes, as: SB_STRING)).pointer
}

@_cdecl("sb_bytes")
public func sb_bytes(_ p: UnsafeRawPointer?, _ n: size_t) -> sb_value_ptr? {
    guard p != nil || n == 0 else { _ = failure(SB_EINVAL, "sb_bytes: NULL pointer with length \(n)"); return nil }
    return Handle(retaining: SBValue.bytes(UnsafeRawBufferPointer(start: p, count: n), as: SB_BYTES)).pointer
}

@_cdecl("sb_array_new")
public func sb_array_new() -> sb_value_ptr? { Handle(retaining: SBValue.container(SB_ARRAY)).pointer }

@_cdecl("sb_dict_new")
public func sb_dict_new() -> sb_value_ptr? { Handle(retaining: SBValue.container(SB_DICT)).pointer }

@_cdecl("sb_pointer")
public func sb_pointer(_ p: UnsafeMutableRawPointer?, _ destroy: sb_destroy_fn?) -> sb_value_ptr? {
    var onRelease: (@Sendable (UnsafeMutableRawPointer?) -> Void)?
    if let destroy { onRelease = { destroy($0) } }
    let pointer = Pointer(p, destroy: onRelease)
    return Handle(retaining: SBValue.object(pointer, as: SB_POINTER)).pointer
}

@_cdecl("sb_value_retain")
public func sb_value_retain(_ v: sb_value_ptr?) -> sb_value_ptr? {
    if let v { Handle(v).retain() }
    return v
}

@_cdecl("sb_value_release")
public func sb_value_release(_ v: sb_value_ptr?) {
    if let v { Handle(v).release() }
}

@_cdecl("sb_value_type")
public func sb_value_type(_ v: sb_value_cptr?) -> sb_type {
    guard let v else { return SB_NULL }
    return Handle(v).type
}

@_cdecl("sb_value_get_bool")
public func sb_value_get_bool(_ v: sb_value_cptr?, _ out: UnsafeMutablePointer<CInt>?) -> sb_status {
    guard let v, let out else { return failure(SB_EINVAL, "sb_value_get_bool: NULL argument") }
    guard let b = Handle(v).bool else { return typeFailure("sb_value_get_bool: the value is ", Handle(v)) }
    out.pointee = b ? 1 : 0
    return SB_OK
}

@_cdecl("sb_value_get_int")
public func sb_value_get_int(_ v: sb_value_cptr?, _ out: UnsafeMutablePointer<Int64>?) -> sb_status {
    guard let v, let out else { return failure(SB_EINVAL, "sb_value_get_int: NULL argument") }
    guard let i = Handle(v).int else { return typeFailure("sb_value_get_int: the value is ", Handle(v)) }
    out.pointee = i
    return SB_OK
}

@_cdecl("sb_value_get_double")
public func sb_value_get_double(_ v: sb_value_cptr?, _ out: UnsafeMutablePointer<Double>?) -> sb_status {
    guard let v, let out else { return failure(SB_EINVAL, "sb_value_get_double: NULL argument") }
    let handle = Handle(v)
    guard let box = handle.box, let d = Borrowed(box).read({ $0.type == SB_DOUBLE ? Double(bitPattern: $0.h.pointee.scalar) : nil })
    else { return typeFailure("sb_value_get_double: the value is ", handle) }
    out.pointee = d
    return SB_OK
}

@_cdecl("sb_value_get_pointer")
public func sb_value_get_pointer(_ v: sb_value_cptr?, _ out: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> sb_status {
    guard let v, let out else { return failure(SB_EINVAL, "sb_value_get_pointer: NULL argument") }
    let handle = Handle(v)
    guard let pointer = handle.box.flatMap({ Borrowed($0).read { $0.pointer } }) else { return typeFailure("sb_value_get_pointer: the value is ", handle) }
    out.pointee = pointer.address
    return SB_OK
}

/// A getter asked for another kind: SB_ETYPE, with a message made of two
/// static texts that are joined only if someone reads it (programs probe
/// kinds with the getters and rarely ask why one said no).
@inline(never)
private func typeFailure(_ said: StaticString, _ handle: Handle) -> sb_status {
    sb__error_set_static(cText(said), cText(staticTypeWithArticle(handle.type)))
    return SB_ETYPE
}

private func cText(_ text: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// typeWithArticle, as static text.
private func staticTypeWithArticle(_ type: sb_type) -> StaticString {
    switch type {
    case SB_NULL: "a null"
    case SB_BOOL: "a bool"
    case SB_INT: "an int"
    case SB_DOUBLE: "a double"
    case SB_STRING: "a string"
    case SB_BYTES: "a bytes"
    case SB_ARRAY: "an array"
    case SB_DICT: "a dict"
    case SB_CALLBACK: "a callback"
    default: "a pointer"
    }
}

@_cdecl("sb_value_get_string")
public func sb_value_get_string(_ v: sb_value_cptr?, _ len: UnsafeMutablePointer<size_t>?) -> UnsafePointer<CChar>? {
    tail(v, len, SB_STRING).map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
}

@_cdecl("sb_value_get_bytes")
public func sb_value_get_bytes(_ v: sb_value_cptr?, _ len: UnsafeMutablePointer<size_t>?) -> UnsafeRawPointer? {
    tail(v, len, SB_BYTES).map { UnsafeRawPointer($0) }
}

private func tail(_ v: sb_value_cptr?, _ len: UnsafeMutablePointer<size_t>?, _ type: sb_type) -> UnsafePointer<UInt8>? {
    guard let v, let box = Handle(v).box else { return nil }
    return Borrowed(box).read { value in
        guard value.type == type else { return nil }
        len?.pointee = value.h.pointee.count
        return UnsafePointer(value.tailBytes)
    }
}

@_cdecl("sb_value_equal")
public func sb_value_equal(_ a: sb_value_cptr?, _ b: sb_value_cptr?) -> CInt {
    guard let a, let b else { return a == nil && b == nil ? 1 : 0 }
    return Handle(a).equals(Handle(b)) ? 1 : 0
}

/// "an int", "a dict": a type's name for a message.
func typeWithArticle(_ type: sb_type) -> String {
    let name = typeName(type)
    return type == SB_INT || type == SB_ARRAY ? "an \(name)" : "a \(name)"
}

func typeName(_ type: sb_type) -> String {
    switch type {
    case SB_NULL: "null"
    case SB_BOOL: "bool"
    case SB_INT: "int"
    case SB_DOUBLE: "double"
    case SB_STRING: "string"
    case SB_BYTES: "bytes"
    case SB_ARRAY: "array"
    case SB_DICT: "dict"
    case SB_CALLBACK: "callback"
    default: "pointer"
    }
}
