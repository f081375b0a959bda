// The Swift samples of docs/porting-from-ctmediator.md, run by name:
// `SwitchboardPorting Calling` runs Calling.swift's calling().
// scripts/check-samples.sh compares what each prints with the output
// the guide shows under it.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

let samples: [String: () throws -> Void] = [
    "Calling": calling,
    "Fallbacks": fallbacks,
    "Results": results,
    "RemoteCall": remoteCall,
    "URLRouter": urlRouter,
    "URLLookups": urlLookups,
    "Services": services,
]

let name = CommandLine.arguments.dropFirst().first ?? ""
guard let sample = samples[name] else {
    print("usage: SwitchboardPorting \(samples.keys.sorted().joined(separator: "|"))")
    exit(2)
}
do {
    try sample()
} catch {
    print("\(name) failed: \(error)")
    exit(1)
}
