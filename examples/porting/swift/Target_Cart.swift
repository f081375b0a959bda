// CTMediator's Target_Cart class with its Action_ methods. Callers find it by
// the name "Cart" (the mediator adds "Target_"); each instance is one cart.
import Switchboard
import Synchronization

final class Target_Cart: Target {
    private let cart = Mutex((items: 0, total: 0.0))

    static let actions: Actions<Target_Cart> = [
        // - (NSInteger)Action_add:(NSDictionary *)params
        "add": { target, params in
            .int(Int64(target.cart.withLock { cart in
                cart.items += 1
                cart.total += params["price"]?.double ?? 0
                return cart.items
            }))
        },
        // - (CGFloat)Action_total:(NSDictionary *)params
        "total": { target, _ in .double(target.cart.withLock { $0.total }) },
        // - (BOOL)Action_isEmpty:(NSDictionary *)params
        "isEmpty": { target, _ in .bool(target.cart.withLock { $0.items == 0 }) },
        // - (void)Action_nativeClear:(NSDictionary *)params
        "nativeClear": { target, _ in
            target.cart.withLock { $0 = (0, 0) }
            return .null
        },
    ]

    // What the actions take and give, checked at every call (optional).
    static let contracts: Contracts = [
        "add": "item: string, price: double = 0.0 -> int",
        "total": "-> double",
        "isEmpty": "-> bool",
    ]
}
