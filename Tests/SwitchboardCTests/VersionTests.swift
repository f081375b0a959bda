import Testing
import CSwitchboard
import Switchboard

@Suite("Versions")
struct VersionTests {
    @Test("Mediator.version, SB_VERSION_STRING and sb_version() say the same release")
    func sameRelease() {
        #expect(Mediator.version == SB_VERSION_STRING)
        #expect(String(cString: sb_version()) == Mediator.version)
        let parts = Mediator.version.split(separator: ".").compactMap { Int($0) }
        #expect(parts.count == 3)
        #expect(parts.count == 3 && Int32(parts[0] * 10000 + parts[1] * 100 + parts[2]) == sb_version_number())
    }
}
