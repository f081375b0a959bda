import Switchboard

func results() throws {
    let mediator = Mediator(modules: ["SwitchboardPorting"])
    let tea: Params = ["item": "tea", "price": 2.5]

    // CTMediator boxes NSInteger, BOOL and CGFloat in an NSNumber and gives
    // nil for void; a Value keeps each kind apart, and void is .null.
    for action in ["add", "total", "isEmpty", "nativeClear"] {
        let result = mediator.performAndWait(target: "Cart", action: action, params: tea, cacheTarget: true)
        print("\(action):", result, result.kind)
    }

    // CTMediator+Cart, the category of typed methods, is generated from the
    // contracts: switchboard gen --lang swift (generated/Mediator+Cart.swift).
    let count: Int = try mediator.cart_add(item: "tea", price: 2.5, cacheTarget: true)
    let total: Double = try mediator.cart_total(cacheTarget: true)
    print("cart_add:", count, "cart_total:", total)

    // A typed wrapper never takes a fallback: it knows nothing of its type.
    let bare = Mediator() // no Target_Cart here
    try bare.register(target: "NoTargetAction", action: "response") { _ in "a 404 page" }
    print("perform:", bare.performAndWait(target: "Cart", action: "total"))
    do { _ = try bare.cart_total() } catch { print("cart_total:", error) }

    // A declared result is checked on every call.
    try bare.register(target: "Cart", action: "total", contract: "-> double") { _ in "free" }
    do { _ = try bare.callAndWait(target: "Cart", action: "total") } catch { print("call:", error) }
}
