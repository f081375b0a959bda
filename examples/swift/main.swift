// The CTMediator demo, on Switchboard: each case of the original demo's table,
// printed as it happens, then its remote call (an app:// URL with a
// completion) and the native rule that keeps native* actions from URLs.
import Switchboard
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

let mediator = Mediator.shared
// Where Target_<Name> classes live: this program's own module.
mediator.modules = ["SwitchboardDemo"]

// `SwitchboardDemo --catalogue` prints target A's catalogue as JSON instead:
// scripts/generate.sh generates wrappers from it, to check that the Swift
// contracts say what module_a.c's contracts (which the committed wrappers
// are made from) say.
if CommandLine.arguments.dropFirst() == ["--catalogue"] {
    do throws(SwitchboardError) {
        _ = try mediator.route(target: "A", action: "cell") // finds Target_A
        print(mediator.routes())
    } catch {
        print("SwitchboardDemo: \(error.message)")
        exit(1)
    }
    exit(0)
}

func step(_ title: String, _ body: () -> Void) {
    print("\n== \(title)")
    body()
}

step("1. present detail page (nativeFetchDetailViewController)") {
    print("   ->", mediator.moduleADetailPage(key: "present from the demo"))
}

step("2. push detail page (same action, another key)") {
    print("   ->", mediator.moduleADetailPage(key: "pushed from the demo"))
}

step("3. present image (nativePresentImage)") {
    print("   ->", mediator.moduleAImagePage(image: "switchboard.png"))
}

step("4. present image with no image: the nil-image fallback (nativeNoImage)") {
    print("   ->", mediator.moduleAImagePage(image: nil))
}

step("5. show alert; the user taps Confirm (confirmAction callback)") {
    let result = mediator.moduleAShowAlert(
        message: "Delete the draft?", answer: "confirm",
        confirm: { info in print("   [caller] confirmAction called with", info); return "confirmed" },
        cancel: { info in print("   [caller] cancelAction called with", info); return "cancelled" })
    print("   ->", result)
}

step("6. show alert; the user taps Cancel (cancelAction callback)") {
    let result = mediator.moduleAShowAlert(
        message: "Delete the draft?", answer: "cancel",
        confirm: { _ in "confirmed" },
        cancel: { info in print("   [caller] cancelAction called with", info); return "cancelled" })
    print("   ->", result)
}

step("7. table cells from a cached target (cell + configCell), then release it") {
    for row in 1...3 {
        print("   row \(row) ->", mediator.moduleATableCell(identifier: "DemoCell", title: "Row \(row)"))
    }
    mediator.moduleACleanTableCellTarget()
    print("   released the cached target A; the next cell comes from a new instance:")
    print("   row 1 ->", mediator.moduleATableCell(identifier: "DemoCell", title: "Row 1"))
    mediator.moduleACleanTableCellTarget()
}

step("8. a target that does not exist: the NoTargetAction response") {
    print("   ->", mediator.performAndWait(target: "B", action: "nativeFetchDetailViewController", params: ["key": "x"]))
}

step("9. an action target A does not have, reported by call() instead of falling back") {
    do throws(SwitchboardError) {
        _ = try mediator.callAndWait(target: "A", action: "doesNotExist")
    } catch {
        print("   -> error \(error.code.name): \(error.message)")
    }
}

step("10. what the typed wrappers rule out: a param of the wrong type, caught by A's contract") {
    do throws(SwitchboardError) {
        _ = try mediator.callAndWait(target: "A", action: "nativePresentImage", params: ["image": 42])
    } catch {
        print("   -> error \(error.code.name): \(error.message)")
    }
}

/// Opens `url` as a remote call (CTMediator's performActionWithUrl:completion:)
/// and prints what the completion got, then what open() returned: the result,
/// or null when the call failed (open never throws, as in CTMediator).
func openRemote(_ url: String) {
    print("   open \(url)")
    let result = mediator.openAndWait(url, completion: { info in print("   [caller] completion got", info) })
    print("   ->", result)
}

step("11. a remote call: a URL opened with a completion (app:// reaches targets by name)") {
    openRemote("app://A/cell?identifier=LinkCell")
}

step("12. a native action from a URL: refused before any code of A runs") {
    let url = "app://A/nativeFetchDetailViewController?key=from%20a%20link"
    openRemote(url)
    // call(url:) is the form that reports the refusal as an error.
    do throws(SwitchboardError) {
        _ = try mediator.callAndWait(url: url)
    } catch {
        print("   call(url:) -> error \(error.code.name): \(error.message)")
    }
}

step("13. an action that answers later, awaited (try await call)") {
    let m = mediator
    try? m.register(target: "Net", action: "fetch") { params async throws -> Value in
        try await Task.sleep(for: .milliseconds(20)) // the work
        return .string("<html>\(params["page"]?.string ?? "?")</html>")
    }
    let answer = Mutex<String?>(nil)
    Task.detached {
        let page: String
        do throws(SwitchboardError) {
            page = "\(try await m.call(target: "Net", action: "fetch", params: ["page": "the news"]))"
        } catch {
            page = "error \(error.code.name): \(error.message)"
        }
        answer.withLock { $0 = page }
    }
    // The demo waits only so that it prints in order (detached: the main
    // thread is the main actor's, busy here); the task's thread never blocks.
    while answer.withLock({ $0 == nil }) { usleep(1000) }
    print("   -> awaited:", answer.withLock { $0! })
}
