// The libswitchboard.so product. Everything it exports comes from
// SwitchboardC; this target exists to carry the link settings that only the
// shared library gets (exports.map, the SONAME), see Package.swift.
@_exported import SwitchboardC
