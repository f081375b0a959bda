/// The release of the Switchboard package, for Swift code that uses no C: the
/// same as SB_VERSION_STRING in include/switchboard.h and sb_version()
/// (SwitchboardCTests/VersionTests checks the three agree). What the numbers
/// promise is in the README's "Versions" section.
extension Mediator {
    /// The package's release, "MAJOR.MINOR.PATCH".
    public static let version = "1.1.0"
}
