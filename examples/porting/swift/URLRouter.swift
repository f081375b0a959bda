import Switchboard

func urlRouter() throws {
    let mediator = Mediator(modules: ["SwitchboardPorting"])

    // registerURLPattern:toHandler: — the handler is a registered action,
    // and the pattern routes to it. <int:id> arrives as an int; (/:tab) is optional.
    try mediator.register(target: "Pages", action: "user") { params in
        print("handler got", params)
        return "the user page"
    }
    try mediator.addURLPattern("app://user/<int:id>(/:tab)", target: "Pages", action: "user")
    // A pattern may lead to any target's action, Target_Cart's too.
    try mediator.addURLPattern("app://buy/:item", target: "Cart", action: "add")

    // openURL:withUserInfo:completion: — the user info goes beside the URL.
    mediator.openAndWait("app://user/42/posts?ref=mail", params: ["from": "inbox"]) { info in
        print("completion got", info)
    }
    print("buy:", mediator.openAndWait("app://buy/tea?price=2.5"))

    // deregisterURLPattern: — then app://buy/tea is target "buy", action
    // "tea": NoTargetAction answers (JLRoutes' unmatchedURLHandler).
    mediator.removeURLPattern("app://buy/:item")
    print("removed:", mediator.openAndWait("app://buy/tea"))
}
