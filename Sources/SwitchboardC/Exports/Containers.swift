@_spi(Faces) import Switchboard
import CSwitchboard
#if canImport(Glibc)
import Glibc
#endif

// Arrays and dicts (switchboard.h, "containers").

/// Puts `item` into the container `target` with `insert`, which takes over
/// one reference; `steal` says whether the caller's reference is given up.
private func add(_ target: sb_value_ptr?, _ item: sb_value_ptr?, steal: Bool, type: sb_type, caller: String,
                 _ insert: (SBValue, Handle) -> Bool) -> sb_status {
    let owned = item.map { steal ? Handle($0) : Handle($0).retain() }
    guard let target, let owned else {
        owned?.release()
        return failure(SB_EINVAL, "\(caller): NULL argument")
    }
    let container = Handle(target)
    guard let box = container.box, Borrowed(box).read({ $0.type == type }) else {
        owned.release()
        return failure(SB_ETYPE, "\(caller): the container is \(typeWithArticle(container.type))")
    }
    return Borrowed(box).read { c in
        guard let itemBox = owned.box, Borrowed(itemBox).read({ $0.isContainer }) else {
            guard insert(c, owned) else {
                owned.release()
                return failure(SB_ENOMEM, "\(caller): out of memory")
            }
            return SB_OK
        }
        // A container: it must fit where it goes (a strong reference, as
        // `owned` may be the last one and is released on failure).
        let item = itemBox.takeUnretainedValue()
        if let problem = Nesting.admit(item, into: c) {
            owned.release()
            return failure(SB_EINVAL, "\(caller): \(problem)")
        }
        guard insert(c, owned) else {
            Nesting.undo(item, into: c)
            owned.release()
            return failure(SB_ENOMEM, "\(caller): out of memory")
        }
        return SB_OK
    }
}

@_cdecl("sb_array_append")
public func sb_array_append(_ array: sb_value_ptr?, _ item: sb_value_ptr?) -> sb_status {
    add(array, item, steal: false, type: SB_ARRAY, caller: "sb_array_append") { $0.append($1) }
}

@_cdecl("sb_array_append_new")
public func sb_array_append_new(_ array: sb_value_ptr?, _ item: sb_value_ptr?) -> sb_status {
    add(array, item, steal: true, type: SB_ARRAY, caller: "sb_array_append_new") { $0.append($1) }
}

private func setKey(_ dict: sb_value_ptr?, _ key: UnsafePointer<CChar>?, _ v: sb_value_ptr?, steal: Bool,
                    caller: String) -> sb_status {
    guard let key else {
        if steal, let v { Handle(v).release() }
        return failure(SB_EINVAL, "\(caller): NULL key")
    }
    let bytes = UnsafeRawPointer(key).assumingMemoryBound(to: UInt8.self)
    guard let length = validUTF8Length(bytes) else {
        if steal, let v { Handle(v).release() }
        return failure(SB_EINVAL, "\(caller): key is not valid UTF-8")
    }
    return add(dict, v, steal: steal, type: SB_DICT, caller: caller) { $0.set(key: bytes, length: length, value: $1) }
}

@_cdecl("sb_dict_set")
public func sb_dict_set(_ dict: sb_value_ptr?, _ key: UnsafePointer<CChar>?, _ v: sb_value_ptr?) -> sb_status {
    setKey(dict, key, v, steal: false, caller: "sb_dict_set")
}

@_cdecl("sb_dict_set_new")
public func sb_dict_set_new(_ dict: sb_value_ptr?, _ key: UnsafePointer<CChar>?, _ v: sb_value_ptr?) -> sb_status {
    setKey(dict, key, v, steal: true, caller: "sb_dict_set_new")
}

@_cdecl("sb_dict_get")
public func sb_dict_get(_ dict: sb_value_cptr?, _ key: UnsafePointer<CChar>?) -> sb_value_ptr? {
    guard let dict, let key, let box = Handle(dict).box else { return nil }
    return Borrowed(box).read { d in
        guard d.type == SB_DICT, let i = d.find(key: key) else { return nil }
        return d.dictEntries[i].value.pointer
    }
}

@_cdecl("sb_value_count")
public func sb_value_count(_ v: sb_value_cptr?) -> size_t {
    guard let v, let box = Handle(v).box else { return 0 }
    return Borrowed(box).read { $0.isContainer ? $0.h.pointee.count : 0 }
}

@_cdecl("sb_array_get")
public func sb_array_get(_ array: sb_value_cptr?, _ i: size_t) -> sb_value_ptr? {
    guard let array, let box = Handle(array).box else { return nil }
    return Borrowed(box).read { a in
        guard a.type == SB_ARRAY, let item = a.element(i) else { return nil }
        return item.pointer
    }
}

@_cdecl("sb_dict_at")
public func sb_dict_at(_ dict: sb_value_cptr?, _ i: size_t, _ key: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                       _ value: sb_value_out?) -> sb_status {
    key?.pointee = nil
    value?.pointee = nil
    guard let dict else { return failure(SB_EINVAL, "sb_dict_at: NULL dict") }
    let handle = Handle(dict)
    guard let box = handle.box, Borrowed(box).read({ $0.type == SB_DICT }) else {
        return failure(SB_ETYPE, "sb_dict_at: the value is \(typeWithArticle(handle.type))")
    }
    return Borrowed(box).read { d in
        guard i >= 0 && i < d.h.pointee.count else {
            return failure(SB_EINVAL, "sb_dict_at: index \(i) is out of range (count \(d.h.pointee.count))")
        }
        let entry = d.dictEntries + i
        key?.pointee = UnsafeRawPointer(DictEntry.key(entry)).assumingMemoryBound(to: CChar.self)
        value?.pointee = entry.pointee.value.pointer
        return SB_OK
    }
}
