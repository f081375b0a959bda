// The caller's side of module A (CTMediator's "CTMediator+CTMediatorModuleAActions"
// category). The typed wrappers themselves are generated from module A's
// contracts (generated/Mediator+A.swift, by scripts/generate.sh); what is
// left to write by hand is what the demo adds on top: a page when a call
// fails, the nil-image choice, the cached cell target. Callers use these and
// never import module A.
import Switchboard

extension Mediator {
    func moduleADetailPage(key: String) -> Value {
        page { try a_nativeFetchDetailViewController(key: .string(key)) }
    }

    /// With no image, asks module A for its placeholder page instead.
    func moduleAImagePage(image: String?) -> Value {
        guard let image else { return page { try a_nativeNoImage() } }
        return page { try a_nativePresentImage(image: image) }
    }

    func moduleAShowAlert(message: String, answer: String,
                          confirm: @escaping @Sendable (Value) -> Value,
                          cancel: @escaping @Sendable (Value) -> Value) -> Value {
        do {
            return try a_showAlert(message: message, answer: answer,
                                   confirmAction: Callback(confirm), cancelAction: Callback(cancel))
        } catch {
            return .string("alert failed: \(error.message)")
        }
    }

    /// Cells come from a cached target, so every cell is made by one instance.
    func moduleATableCell(identifier: String, title: String) -> Value {
        page {
            let cell = try a_cell(identifier: identifier, cacheTarget: true)
            return try a_configCell(cell: .dict(cell), title: title, cacheTarget: true)
        }
    }

    /// The table view is gone: drop the cached target.
    func moduleACleanTableCellTarget() {
        evict(target: "A")
    }

    /// The page a wrapper returns, or an error page saying why there is none.
    /// (The wrappers throw only SwitchboardError; a closure's typed throws
    /// is not inferred, so `page` takes any error.)
    private func page(_ make: () throws -> Value.Dict) -> Value {
        do {
            return .dict(try make())
        } catch {
            return ["page": "ErrorViewController", "error": .string("\(error)")]
        }
    }
}
