import Switchboard

func urlLookups() throws {
    let mediator = Mediator(modules: ["SwitchboardPorting"])
    try mediator.register(target: "Pages", actions: [
        "user": { params in .string("user \(params["id"]!.int!) from \(params[Mediator.patternKey]!.string!)") },
        "missing": { params in .string("no page for \(params["url"]!.string!)") },
    ])

    // valueConverters["slug"]: a placeholder type of your own; nil declines.
    try mediator.addURLConverter("slug") { segment in
        segment.allSatisfy { $0.isLetter || $0 == "-" } ? .string(segment.lowercased()) : nil
    }
    try mediator.addURLPattern("shop://user/<int:id>", target: "Pages", action: "user")
    try mediator.addURLPattern("shop://tag/<slug:item>", target: "Cart", action: "add")

    // generateURLWithPattern:parameters: — by name; matching gives them back.
    let url = try mediator.buildURL(pattern: "shop://user/<int:id>", params: ["id": 42, "ref": "a b"])
    print("built:", url)
    print("opened:", mediator.openAndWait(url))

    // canRouteURL:, handler(for:) — what would answer, calling nothing.
    let found = try mediator.lookup(url: "shop://tag/Green-Tea?price=2")
    print("lookup:", found.kind, found.target!, found.action!, found.params["item"]!.string!)
    print("can open shop://cart:", mediator.canOpen(url: "shop://cart"))

    // unmatchedURLHandler — for the scheme (or, without one, every scheme).
    try mediator.setURLFallback(target: "Pages", action: "missing", scheme: "shop")
    print("fallback:", mediator.openAndWait("shop://cart?x=1"))

    // unregisterRouteScheme: every pattern of the scheme at once.
    print("removed:", mediator.removeURLPatterns(scheme: "shop"))
}
