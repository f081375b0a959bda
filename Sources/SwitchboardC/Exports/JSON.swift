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

@_cdecl("sb_free")
public func sb_free(_ p: UnsafeMutableRawPointer?) {
    free(p)
}
