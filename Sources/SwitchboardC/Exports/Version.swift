import CSwitchboard

@_cdecl("sb_version")
public func sb_version() -> UnsafePointer<CChar>? {
    UnsafeRawPointer(versionString).assumingMemoryBound(to: CChar.self)
}

@_cdecl("sb_version_number")
public func sb_version_number() -> CInt {
    CInt(SB_VERSION_NUMBER)
}

@_cdecl("sb_abi_version")
public func sb_abi_version() -> CInt {
    CInt(SB_ABI_VERSION)
}

/// SB_VERSION_STRING in static storage that lives as long as the library
/// (immutable after initialization).
private nonisolated(unsafe) let versionString: UnsafeMutablePointer<UInt8> = {
    let text = Array(SB_VERSION_STRING.utf8) + [0]
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: text.count)
    p.initialize(from: text, count: text.count)
    return p
}()
