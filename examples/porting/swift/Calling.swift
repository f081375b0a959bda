import Switchboard

func calling() {
    // Where Target_<Name> classes are looked up: this program's module.
    let mediator = Mediator(modules: ["SwitchboardPorting"])
    let tea: Params = ["item": "tea", "price": 2.5]

    // shouldCacheTarget:NO: each call makes a cart and drops it.
    print("uncached:", mediator.performAndWait(target: "Cart", action: "add", params: tea))
    print("uncached:", mediator.performAndWait(target: "Cart", action: "add", params: tea))
    // shouldCacheTarget:YES keeps the cart; uncached calls use it too.
    print("cached:", mediator.performAndWait(target: "Cart", action: "add", params: tea, cacheTarget: true))
    print("uncached:", mediator.performAndWait(target: "Cart", action: "add", params: tea))
    // releaseCachedTargetWithFullTargetName:@"Target_Cart"
    print("release:", mediator.evict(target: "Cart"))
    print("release again:", mediator.evict(target: "Cart"))

    // kCTMediatorParamsKeySwiftTargetModuleName names the module for one call.
    let bare = Mediator() // searches no module
    print("no module:", bare.performAndWait(target: "Cart", action: "add", params: tea))
    var named = tea
    named[Mediator.ctMediatorModuleKey] = "SwitchboardPorting"
    print("module SwitchboardPorting:", bare.performAndWait(target: "Cart", action: "add", params: named))
    named[Mediator.ctMediatorModuleKey] = "" // names no module
    print("module \"\":", bare.performAndWait(target: "Cart", action: "add", params: named))
}
