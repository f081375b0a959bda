import Switchboard
import CSwitchboard
#if canImport(Glibc)
import Glibc
#endif

@_cdecl("sb_json_encode")
public func sb_json_encode(_ v: sb_value_cptr?) -> UnsafeMutablePointer<CChar>? {
    guard let v else { _ = failure(SB_EINVAL, "sb_json_encode: NULL value"); return nil }
    do throws(SwitchboardError) {
        let text = try Handle(v).toValue().description
        return strdup(text)
    } catch {
        _ = failure(error)
        return nil
    }
}

@_cdecl("sb_json_decode")
public func sb_json_decode(_ json: UnsafePointer<CChar>?, _ out: sb_value_out?) -> sb_status {
    out?.pointee = nil
    guard let json, let out else { return failure(SB_EINVAL, "sb_json_decode: NULL text or out") }
    guard let text = String(validatingCString: json) else {
        return failure(SB_EINVAL, "sb_json_decode: the text is not valid UTF-8")
    }
    do throws(SwitchboardError) {
        out.pointee = try Handle.from(Value(json: text)).pointer
        return SB_OK
    } catch {
        return failure(error)
    }
}

@_cdecl("sb_memory_free")
public func sb_memory_free(_ p: UnsafeMutableRawPointer?) {
    free(p)
}
