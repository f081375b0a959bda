import Switchboard

func calling() {
    // Where Target_<Name> classes are looked up: this program's module.
    let mediator = Mediator(modules: ["SwitchboardPorting"])
    let tea: Params = ["item": "tea", "price": 2.5]

    // shouldCacheTarget:NO: each call makes a cart and drops it.
    print("uncached:", mediator.perform(target: "Cart", action: "add", params: tea))
    print("uncached:", mediator.perform(target: "Cart", action: "add", params: tea))
    // shouldCacheTarget:YES keeps the cart; uncached calls use it too.
    print("cached:", mediator.perform(target: "Cart", action: "add", params: tea, cacheTarget: true))
    print("uncached:", mediator.perform(target: "Cart", action: "add", params: tea))
    // releaseCachedTargetWithFullTargetName:@"Target_Cart"
    print("release:", mediator.releaseCachedTarget("Cart"))
    print("release again:", mediator.releaseCachedTarget("Cart"))

    // kCTMediatorParamsKeySwiftTargetModuleName names the module for one call.
    let bare = Mediator() // searches no module
    print("no module:", bare.perform(target: "Cart", action: "add", params: tea))
    var named = tea
    named[Mediator.ctMediatorModuleKey] = "SwitchboardPorting"
    print("module SwitchboardPorting:", bare.perform(target: "Cart", action: "add", params: named))
    named[Mediator.ctMediatorModuleKey] = "" // names no module
    print("module \"\":", bare.perform(target: "Cart", action: "add", params: named))
}
