// The fallback target (CTMediator's Target_NoTargetAction): answers every call
// that nothing else answers.
import Switchboard

final class Target_NoTargetAction: Target {
    static let actions: Actions<Target_NoTargetAction> = [
        "response": { _, params in
            let target = params["target"]?.string ?? "?"
            let action = params["action"]?.string ?? "?"
            return ["page": "NotFoundViewController",
                    "reason": .string("nothing answers \(target)/\(action)"),
                    "originParams": params["originParams"] ?? [:]]
        },
    ]
}
