// The feature code of the DocC article "Testing with Your Own Mediator"
// (Sources/Switchboard/Switchboard.docc/TestingWithYourOwnMediator.md shows it).
import Switchboard

final class Target_Checkout: Target {
    static let actions: Actions<Target_Checkout> = [:]
    // Actions that get their call's context: the mediator that called them.
    static let contextActions: ContextActions<Target_Checkout> = [
        "pay": { _, params, call in
            // Call on through the calling mediator, never Mediator.shared:
            // a test that made its own mediator keeps this call inside it.
            let charged = try call.mediator.callAndWait(target: "Payments", action: "charge",
                                                        params: ["cents": params["cents"] ?? 0],
                                                        options: call.options)
            return charged == true ? "paid" : "declined"
        },
    ]
}
