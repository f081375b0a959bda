import Switchboard

// BeeHive's @protocol(Payments) and a class that implements it.
protocol Payments: Sendable { func charge(cents: Int) -> Bool }
struct TestPayments: Payments { func charge(cents: Int) -> Bool { cents <= 10_000 } }

func services() throws {
    let mediator = Mediator(modules: ["SwitchboardPorting"])

    // registerService:@protocol(Payments) implClass:[TestPayments class]
    mediator.register(Payments.self) { TestPayments() }
    // createService:@protocol(Payments): callers never name TestPayments.
    print("charge:", mediator.service(Payments.self)?.charge(cents: 300) ?? false)

    // The same idea by name, as C and Lua have it: an interface, bound to a
    // target that conforms (here Target_Cart), called through the interface.
    try mediator.defineService("Basket", interface: "add(item: string -> int)\ntotal(-> double)")
    try mediator.bindService("Basket", to: "Cart")
    print("Basket.add:", try mediator.callServiceAndWait("Basket", action: "add", params: ["item": "tea"]))
    try mediator.defineService("Checkout", interface: "pay(cents: int -> bool)")
    do { try mediator.bindService("Checkout", to: "Cart") } catch { print("bind:", error) }
}
