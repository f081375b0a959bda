@_spi(Faces) import Switchboard

/// Face-internal (switchboard_internal.h): a forking host asks the library's
/// own threads to exit when idle. Returns how many still run.
@_cdecl("sb__own_threads_settle")
public func sb__own_threads_settle(_ milliseconds: UInt32) -> Int32 {
    Int32(OwnThreads.settle(waitingUpTo: milliseconds))
}
