import Switchboard
import CSwitchboard
#if canImport(Glibc)
import Glibc
#endif

@_cdecl("sb_to_json")
public func sb_to_json(_ v: sb_value_cptr?) -> UnsafeMutablePointer<CChar>? {
    guard let v else { _ = failure(SB_EINVAL, "sb_to_json: NULL value"); return nil }
    do throws(SwitchboardError) {
        let text = try Handle(v).toValue().description
        return strdup(text)
    } catch {
        _ = failure(error)
        return nil
    }
}

@_cdecl("sb_from_json")
public func sb_from_json(_ json: UnsafePointer<CChar>?, _ out: sb_value_out?) -> sb_status {
    out?.pointee = nil
    guard let json, let out else { return failure(SB_EINVAL, "sb_from_json: NULL text or out") }
    guard let text = String(validatingCString: json) else {
        return failure(SB_EINVAL, "sb_from_json: the text is not valid UTF-8")
    }
    do throws(SwitchboardError) {
        out.pointee = try Handle.from(Value(json: text)).pointer
        return SB_OK
    } catch {
        return failure(error)
    }
}

@_cdecl("sb_free")
public func sb_free(_ p: UnsafeMutableRawPointer?) {
    free(p)
}
