import Switchboard

// Target_NoTargetAction answers what nothing else answers, with
// CTMediator's params and a few more; this one answers with them.
final class Target_NoTargetAction: Target {
    static let actions: Actions<Target_NoTargetAction> = [
        "response": { _, params in .dict(params) },
    ]
}

func fallbacks() throws {
    let mediator = Mediator(modules: ["SwitchboardPorting"])

    // notFound: answers the actions its target lacks, with their params.
    try mediator.register(target: "Help", action: "notFound") { params in
        .string("no help on " + (params["topic"]?.string ?? "that"))
    }
    print("notFound:", mediator.performAndWait(target: "Help", action: "search", params: ["topic": "tea"]))

    // No target, or no action and no notFound: NoTargetAction answers.
    print("no target:", mediator.performAndWait(target: "Shop", action: "open", params: ["id": 7]))
    print("module key:", mediator.performAndWait(target: "Cart", action: "add",
                                          params: [Mediator.ctMediatorModuleKey: "Shop"]))
    print("from a URL:", mediator.openAndWait("app://Shop/open?id=7"))

    // A missing action also drops the cached target (the cart starts again).
    print("cached:", mediator.performAndWait(target: "Cart", action: "add", params: ["item": "tea"], cacheTarget: true))
    print("no action:", mediator.performAndWait(target: "Cart", action: "checkout"))
    print("cached:", mediator.performAndWait(target: "Cart", action: "add", params: ["item": "tea"], cacheTarget: true))

    // call() reports what is missing instead of falling back.
    do {
        _ = try mediator.callAndWait(target: "Cart", action: "checkout")
    } catch {
        print("call:", error)
    }
}
