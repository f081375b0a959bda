import Testing
import Foundation
import CSwitchboard
@testable import SwitchboardC
@_spi(Faces) @testable import Switchboard

/// The Swift face's error codes and the C header's sb_status, one to one.
@Suite("status codes")
struct StatusTests {
    /// `SB_<NAME> = <value>` of the sb_status enum in include/switchboard.h.
    static func headerStatuses() throws -> [String: Int32] {
        let header = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("include/switchboard.h")
        let text = try String(contentsOf: header, encoding: .utf8)
        let start = try #require(text.range(of: "typedef enum sb_status {"))
        let end = try #require(text.range(of: "} sb_status;", range: start.upperBound..<text.endIndex))
        var statuses: [String: Int32] = [:]
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "," })
            guard words.count >= 3, words[0].hasPrefix("SB_"), words[1] == "=", let value = Int32(words[2]) else { continue }
            statuses[String(words[0].dropFirst(3))] = value
        }
        return statuses
    }

    @Test("every error status of the header is a Swift code with its number and name, and nothing else is")
    func oneToOne() throws {
        let statuses = try Self.headerStatuses()
        let errors = statuses.filter { $0.key != "OK" && $0.key != "PENDING" }
        #expect(errors.count == 14)
        #expect(Set(statuses.values).count == statuses.count) // no value reused
        for (name, value) in errors {
            let code = try #require(SwitchboardError.Code(rawValue: value), "SB_\(name) has no Swift code")
            #expect(code.name == name)
            // The C face knows it too: a description of its own, not "unknown status".
            let text = String(cString: SwitchboardC.sb_status_string(sb_status(UInt32(value)))!)
            #expect(text != "unknown status", "SB_\(name)")
            // Its name in C is the one Swift, Lua and the command give it.
            #expect(String(cString: SwitchboardC.sb_status_name(sb_status(UInt32(value)))!) == name)
            // And a failure with it keeps it across the C/Swift boundary.
            #expect(sb_status(SwitchboardError(code: code, message: "m")) == sb_status(UInt32(value)))
        }
        #expect(SwitchboardError.Code.allCases.count == errors.count)
        for code in SwitchboardError.Code.allCases {
            #expect(errors[code.name] == code.rawValue, "\(code) is not SB_\(code.name) of the header")
        }
        #expect(sb_status.highest.rawValue == UInt32(errors.values.max()!))
        #expect(String(cString: SwitchboardC.sb_status_string(sb_status(UInt32(errors.values.max()! + 1)))!) == "unknown status")
        #expect(String(cString: SwitchboardC.sb_status_name(sb_status(UInt32(errors.values.max()! + 1)))!) == "EUNKNOWN")
        #expect(String(cString: SwitchboardC.sb_status_name(SB_OK)!) == "OK")
        #expect(String(cString: SwitchboardC.sb_status_name(SB_PENDING)!) == "PENDING")
    }

    @Test("statuses keep the numbers they were given, and the types theirs")
    func numbers() {
        let fixed: [(sb_status, UInt32)] = [
            (SB_OK, 0), (SB_EINVAL, 1), (SB_ENOTARGET, 2), (SB_ENOACTION, 3), (SB_EACTION, 4), (SB_ETYPE, 5),
            (SB_EREJECTED, 6), (SB_EBADURL, 7), (SB_ENOMEM, 8), (SB_EQUEUED, 9), (SB_ETIMEOUT, 10),
            (SB_ECANCELED, 11), (SB_EPARAMS, 12), (SB_EWOULDBLOCK, 13), (SB_ENOTFOUND, 14), (SB_PENDING, 64),
        ]
        for (status, number) in fixed { #expect(status.rawValue == number) }
        let types: [(sb_type, Value.Kind)] = [
            (SB_NULL, .null), (SB_BOOL, .bool), (SB_INT, .int), (SB_DOUBLE, .double), (SB_STRING, .string),
            (SB_BYTES, .bytes), (SB_ARRAY, .array), (SB_DICT, .dict), (SB_CALLBACK, .callback), (SB_POINTER, .pointer),
        ]
        for (type, kind) in types { #expect(Int32(type.rawValue) == kind.rawValue) }
        #expect(SB_CALL_START.rawValue == 0 && SB_CALL_END.rawValue == 1)
    }
}
