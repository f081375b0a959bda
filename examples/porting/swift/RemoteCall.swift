import Switchboard

func remoteCall() throws {
    let mediator = Mediator(modules: ["SwitchboardPorting"])
    let urls = [
        "app://Cart/add?item=tea&price=2.5", // the query's "2.5" becomes the double add declares
        "app://Cart/add/?item=tea",          // one trailing slash, as in CTMediator
        "app://Cart/add/more?item=tea",      // CTMediator would call Action_addmore:
        "app://Cart/nativeClear",            // native* actions: never from a URL
        "shop://Cart/add?item=tea",          // only app:// is connected by default
    ]
    // performActionWithUrl:completion: — the completion is always called.
    for url in urls {
        mediator.openAndWait(url) { info in print(url, "->", info) }
    }

    // CTMediator takes any scheme; connect the ones you use.
    try mediator.connect(scheme: "shop")
    print("shop:", mediator.openAndWait("shop://Cart/add?item=tea"))

    // open() gives null when the call fails, as CTMediator gives nil;
    // call(url:) says why.
    do { _ = try mediator.callAndWait(url: "app://Cart/nativeClear") } catch { print("call:", error) }
}
