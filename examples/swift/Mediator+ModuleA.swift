// The caller's side of module A (CTMediator's "CTMediator+CTMediatorModuleAActions"
// category): typed wrappers that hide the target and action names. Callers
// use these and never import module A.
import Switchboard

extension Mediator {
    func moduleADetailPage(key: String) -> Value {
        perform(target: "A", action: "nativeFetchDetailViewController", params: ["key": .string(key)])
    }

    /// With no image, asks module A for its placeholder page instead.
    func moduleAImagePage(image: String?) -> Value {
        if let image {
            return perform(target: "A", action: "nativePresentImage", params: ["image": .string(image)])
        }
        return perform(target: "A", action: "nativeNoImage")
    }

    func moduleAShowAlert(message: String, answer: String,
                          confirm: @escaping @Sendable (Value) -> Value,
                          cancel: @escaping @Sendable (Value) -> Value) -> Value {
        perform(target: "A", action: "showAlert", params: [
            "message": .string(message), "answer": .string(answer),
            "confirmAction": .callback(Callback(confirm)),
            "cancelAction": .callback(Callback(cancel)),
        ])
    }

    /// Cells come from a cached target, so every cell is made by one instance.
    func moduleATableCell(identifier: String, title: String) -> Value {
        let cell = perform(target: "A", action: "cell", params: ["identifier": .string(identifier)], cacheTarget: true)
        return perform(target: "A", action: "configCell", params: ["cell": cell, "title": .string(title)], cacheTarget: true)
    }

    /// The table view is gone: drop the cached target.
    func moduleACleanTableCellTarget() {
        releaseCachedTarget("A")
    }
}
