// Module A's target, as in CTMediator's demo (Target_A.m). Nothing in this
// program refers to Target_A by type: the mediator finds it by name.
import Switchboard
import Synchronization

final class Target_A: Target {
    /// Numbers instances, so the demo can show which calls share one.
    private static let instancesMade = Atomic<Int>(0)
    let instance = Target_A.instancesMade.add(1, ordering: .relaxed).newValue
    /// Cells this instance has made: state that only a cached target keeps.
    private let cellsMade = Atomic<Int>(0)

    static let actions: Actions<Target_A> = [
        "nativeFetchDetailViewController": { a, params in a.detailPage(params) },
        "nativePresentImage": { a, params in a.presentImage(params) },
        "nativeNoImage": { a, params in a.noImage(params) },
        "showAlert": { a, params in try a.showAlert(params) },
        "cell": { a, params in a.cell(params) },
        "configCell": { a, params in a.configCell(params) },
        // A payment that always fails, as when the payment service is down.
        "charge": { _, _ in throw SwitchboardError.actionFailed("payment service down", underlying: nil) },
    ]

    /// What the actions take and give: checked before each call. The same
    /// contracts as module_a.c's a_contracts, which the typed wrappers in
    /// generated/ are made from (scripts/generate.sh).
    static let contracts: Contracts = [
        "nativeFetchDetailViewController": "key: any? -- the page's title\n-> dict",
        "nativePresentImage": "image: string -- the image to show\n-> dict",
        "nativeNoImage": "-> dict",
        "showAlert": """
            message: string -- the alert's text
            answer: string? -- the button the user taps: confirm (the default) or cancel
            confirmAction: callback? -- called when Confirm is tapped
            cancelAction: callback? -- called when Cancel is tapped
            """,
        "cell": "identifier: string? -- the cell's reuse identifier\n-> dict",
        "configCell": "cell: any?, title: string?\n-> dict",
        "charge": "amount: int? -- in cents\n-> dict",
    ]

    /// CTMediator builds a DemoModuleADetailViewController from `key`; here
    /// the "view controller" is a dict describing the page.
    func detailPage(_ params: Params) -> Value {
        ["page": "DemoModuleADetailViewController", "title": params["key"] ?? "(no key)"]
    }

    func presentImage(_ params: Params) -> Value {
        ["page": "ImageViewController", "image": params["image"] ?? .null]
    }

    /// The fallback when the caller has no image (CTMediator's nil-image case).
    func noImage(_ params: Params) -> Value {
        ["page": "ImageViewController", "image": "placeholder.png", "note": "no image was given"]
    }

    /// Shows an alert and reports the user's choice through the callbacks in
    /// params. There is no user here, so `answer` says which button is tapped.
    func showAlert(_ params: Params) throws -> Value {
        let message = params["message"]?.string ?? ""
        print("   [A] alert: \"\(message)\"  [Confirm] [Cancel]")
        let tapped = params["answer"]?.string == "cancel" ? "cancelAction" : "confirmAction"
        guard let callback = params[tapped]?.callback else { return .string("no \(tapped) given") }
        return try callback(["alertAction": .string(tapped), "message": .string(message)])
    }

    func cell(_ params: Params) -> Value {
        let n = cellsMade.add(1, ordering: .relaxed).newValue
        return ["cell": .string("cell \(n)"), "identifier": params["identifier"] ?? "Cell",
                "targetInstance": .int(Int64(instance))]
    }

    func configCell(_ params: Params) -> Value {
        ["cell": params["cell"] ?? .null, "title": params["title"] ?? "", "configured": true]
    }
}
