@_spi(Faces) import Switchboard
import CSwitchboard
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One loaded plugin. Its targets go when the last target class, instance
/// or function that came from it is gone; its code never does. It is opened
/// `RTLD_NODELETE`, so `dlclose` leaves it mapped until the process exits:
/// a thread the plugin started may still be running its code after the
/// last call ended (every completing thread returns into plugin code from
/// `sb_completion_succeed`), and nothing the library can see says when that
/// thread is done. Loading the same file again maps nothing new.
final class PluginImage: @unchecked Sendable {
    // @unchecked: immutable after init; `targets` points into the loaded image.

    let path: String
    private let handle: UnsafeMutableRawPointer
    /// Target name → its `Target_<Name>` table, as far as its version goes
    /// (later fields zero). Names are keyed by their bytes, as symbols are:
    /// two spellings of "é" are two targets.
    let targets: [ExactName: sb_target_def]
    /// Target name → action name → contract, from the table's `contracts`
    /// (version 2) or its `Contracts_<Name>` export (version 1).
    let contracts: [ExactName: [ExactName: String]]

    /// Loads `path` and checks every `Target_` table it exports.
    init(path: String) throws(SwitchboardError) {
        sb__promote_self()
        var why = [CChar](repeating: 0, count: 160)
        guard sb__plugin_file_check(path, &why, why.count) == 0 else {
            let reason = why.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw .invalidArgument("cannot load plugin '\(path)': \(reason)")
        }
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown error"
            throw .invalidArgument("cannot load plugin '\(path)': \(reason)")
        }
        var names: [String] = []
        let listed = withUnsafeMutablePointer(to: &names) { names in
            sb__plugin_targets(handle, { name, context in
                context!.assumingMemoryBound(to: [String].self).pointee.append(String(cString: name!))
            }, names)
        }
        var targets: [ExactName: sb_target_def] = [:]
        var contracts: [ExactName: [ExactName: String]] = [:]
        do throws(SwitchboardError) {
            guard listed == 0 else { throw .invalidArgument("plugin '\(path)': cannot read its symbol table") }
            for symbol in names {
                // Only what the plugin itself defines: dlsym also finds its
                // dependencies' symbols.
                guard let address = dlsym(handle, symbol), sb__plugin_defines(handle, address) == 1 else { continue }
                let def = try Self.table(at: address, symbol: symbol, path: path)
                try Self.check(def, symbol: symbol, path: path)
                let name = String(symbol.dropFirst("Target_".count))
                targets[ExactName(name)] = def
                let separate = dlsym(handle, "Contracts_" + name).flatMap { sb__plugin_defines(handle, $0) == 1 ? $0 : nil }
                if def.version == 1 {
                    // Version 1 has no `contracts`: a separate export gives them.
                    guard let table = separate else { continue }
                    let entries = try Self.checkSize(table, as: sb_contract_def.self, symbol: "Contracts_" + name, path: path)
                    contracts[ExactName(name)] = try Self.contracts(table.assumingMemoryBound(to: sb_contract_def.self),
                                                                    label: "Contracts_" + name, of: name, def: def,
                                                                    path: path, entries: entries)
                } else {
                    // One source of truth: the table carries its contracts.
                    guard separate == nil else {
                        throw .invalidArgument("plugin '\(path)': \(symbol) is a version-\(def.version) table, which "
                                               + "carries its contracts; it cannot come with Contracts_\(name) too")
                    }
                    guard let inline = def.contracts else { continue }
                    contracts[ExactName(name)] = try Self.contracts(inline, label: symbol + " contracts", of: name,
                                                                    def: def, path: path, entries: nil)
                }
            }
        } catch {
            dlclose(handle)
            throw error
        }
        self.path = path
        self.handle = handle
        self.targets = targets
        self.contracts = contracts
    }

    /// Gives the handle back; the code stays mapped (RTLD_NODELETE).
    deinit { dlclose(handle) }

    /// Refuses a symbol whose ELF size (where the platform gives it) is
    /// smaller than one `T`; returns how many `T` it holds (nil: unknown).
    @discardableResult
    private static func checkSize<T>(_ address: UnsafeMutableRawPointer, as: T.Type, symbol: String,
                                     path: String) throws(SwitchboardError) -> Int? {
        let size = sb__plugin_symbol_size(address)
        guard size >= 0 else { return nil }
        guard size >= Int64(MemoryLayout<T>.size) else {
            throw .invalidArgument("plugin '\(path)': \(symbol) is \(size) bytes, smaller than the "
                                   + "\(MemoryLayout<T>.size) bytes of a \(T.self): not a table of this library")
        }
        return Int(size) / MemoryLayout<T>.stride
    }

    /// The `Target_` table at `address`, read as far as its version goes: a
    /// version this library knows, and a symbol (where its ELF size is
    /// known) at least as large as that version's layout.
    private static func table(at address: UnsafeMutableRawPointer, symbol: String,
                              path: String) throws(SwitchboardError) -> sb_target_def {
        let known = sb__plugin_symbol_size(address)
        guard known < 0 || known >= Int64(MemoryLayout<CInt>.size) else {
            throw .invalidArgument("plugin '\(path)': \(symbol) is \(known) bytes, too small for a version: "
                                   + "not a table of this library")
        }
        let version = address.load(as: CInt.self)
        if let problem = versionProblem("sb_target_def", version, known: SB_TARGET_DEF_VERSION) {
            throw .invalidArgument("plugin '\(path)': \(symbol): \(problem)")
        }
        // Version 1 ends before `contracts`; version 2 is the whole struct.
        let size = version == 1 ? MemoryLayout<sb_target_def>.offset(of: \sb_target_def.contracts)!
                                : MemoryLayout<sb_target_def>.size
        guard known < 0 || known >= Int64(size) else {
            throw .invalidArgument("plugin '\(path)': \(symbol) is \(known) bytes, smaller than the \(size) bytes "
                                   + "of a version-\(version) sb_target_def: not a table of this library")
        }
        return versionedCopy(of: address, size: size, zero: sb_target_def())
    }

    /// A table must have a well-formed, terminated action list (scanned up
    /// to a sanity bound).
    private static func check(_ def: sb_target_def, symbol: String, path: String) throws(SwitchboardError) {
        guard let actions = def.actions else {
            throw .invalidArgument("plugin '\(path)': \(symbol) has no action list")
        }
        for i in 0..<100_000 {
            let action = actions[i]
            if action.name == nil && action.fn == nil { return }
            guard let name = action.name, action.fn != nil, name.pointee != 0,
                  String(validatingCString: name) != nil else {
                throw .invalidArgument("plugin '\(path)': \(symbol) action #\(i) needs a UTF-8 name and a function")
            }
        }
        throw .invalidArgument("plugin '\(path)': \(symbol) action list does not end with {NULL, NULL}")
    }

    /// A contract list (`label` names it in messages): each entry names an
    /// action of the target and holds a contract that parses; it ends with
    /// {NULL, NULL}.
    private static func contracts(_ table: UnsafePointer<sb_contract_def>, label: String, of name: String,
                                  def: sb_target_def, path: String,
                                  entries: Int?) throws(SwitchboardError) -> [ExactName: String] {
        var actions = Set<ExactName>()
        var i = 0
        while let action = def.actions[i].name {
            actions.insert(ExactName(String(cString: action)))
            i += 1
        }
        var found: [ExactName: String] = [:]
        for i in 0..<min(100_000, entries ?? 100_000) {
            let entry = table[i]
            if entry.action == nil && entry.contract == nil { return found }
            guard let actionName = entry.action, let action = String(validatingCString: actionName),
                  let contractText = entry.contract, let text = String(validatingCString: contractText) else {
                throw .invalidArgument("plugin '\(path)': \(label) entry #\(i) needs a UTF-8 action and contract")
            }
            guard actions.contains(ExactName(action)) else {
                throw .invalidArgument("plugin '\(path)': \(label) names \"\(action)\", which Target_\(name) does not have")
            }
            do throws(SwitchboardError) {
                _ = try Contract(parsing: text).validated(for: "\(name).\(action)")
            } catch {
                throw .invalidArgument("plugin '\(path)': \(label): \(error.message)")
            }
            guard found[ExactName(action)] == nil else {
                throw .invalidArgument("plugin '\(path)': \(label) names \"\(action)\" twice")
            }
            found[ExactName(action)] = text
        }
        throw .invalidArgument("plugin '\(path)': \(label) does not end with {NULL, NULL}")
    }

    /// The target class for one of this plugin's tables.
    func targetClass(_ name: ExactName, _ def: sb_target_def) -> ForeignTargetClass {
        var actions: [(name: String, function: ForeignFunction)] = []
        var contracts: [ExactName: Contract] = [:]
        var i = 0
        while let actionName = def.actions[i].name, let fn = def.actions[i].fn {
            let action = String(cString: actionName)
            actions.append((action, CFunction(fn: fn, userdata: nil, freeUserdata: nil, usesInstanceState: true,
                                              owner: self, label: "\(name).\(action)")))
            // Checked when the plugin loaded.
            if let text = self.contracts[name]?[ExactName(action)] {
                contracts[ExactName(action)] = try? Contract(parsing: text)
            }
            i += 1
        }
        let table = TableRef(image: self, def: def)
        return ForeignTargetClass(
            origin: "plugin \(path)", actions: actions, contracts: contracts,
            create: { table.create() },
            destroy: { state in table.destroy(state) },
            stateless: def.create == nil && def.destroy == nil)
    }

    /// What the create/destroy closures capture: the table, and the image
    /// that keeps it mapped.
    private struct TableRef: @unchecked Sendable {
        let image: PluginImage
        let def: sb_target_def

        func create() -> UnsafeMutableRawPointer? { def.create?() }

        func destroy(_ state: UnsafeMutableRawPointer?) {
            withExtendedLifetime(image) { def.destroy?(state) }
        }
    }
}

/// A mediator's plugins, asked in load order for `Target_<Name>` tables.
final class PluginShelf: TargetProvider, @unchecked Sendable {
    // @unchecked: `images` is only touched under `lock`.

    private let lock = Lock()
    private var images: [PluginImage] = []

    /// Loads a plugin unless a plugin with the same real path is loaded.
    func load(_ path: String) throws(SwitchboardError) {
        guard let real = realpath(path, nil) else {
            throw .invalidArgument("cannot load plugin '\(path)': \(String(cString: strerror(errno)))")
        }
        let canonical = String(cString: real)
        free(real)
        if lock.withLock({ images.contains { $0.path.hasSameBytes(as: canonical) } }) { return }
        let image = try PluginImage(path: canonical)
        // A name two plugins define would answer from the first one only:
        // refused, so the second plugin's target is never silently shadowed.
        let clash: (name: String, path: String)? = lock.withLock {
            guard !images.contains(where: { $0.path.hasSameBytes(as: canonical) }) else { return nil }
            for other in images {
                if let name = image.targets.keys.sorted().first(where: { other.targets[$0] != nil }) {
                    return (name.string, other.path)
                }
            }
            images.append(image)
            return nil
        }
        if let clash {
            throw .invalidArgument("plugin '\(canonical)': Target_\(clash.name) is already defined by plugin '\(clash.path)'")
        }
    }

    /// What the shelf finds changes only when a plugin is loaded, and
    /// sb_plugin_load tells the mediator then.
    var isStable: Bool { true }

    func targetClass(named name: String) throws(SwitchboardError) -> ForeignTargetClass? {
        for image in lock.withLock({ images }) {
            if let def = image.targets[ExactName(name)] { return image.targetClass(ExactName(name), def) }
        }
        return nil
    }

    var loaded: [PluginImage] { lock.withLock { images } }

    /// Every Target_ table of every loaded plugin, for listings.
    func listedTargets() -> [ListedTarget] {
        loaded.flatMap { image in
            image.targets.map { name, def in
                var actions: [String] = []
                var i = 0
                while let action = def.actions[i].name {
                    actions.append(String(cString: action))
                    i += 1
                }
                let contracts = (image.contracts[name] ?? [:]).compactMapValues { try? Contract(parsing: $0) }
                return ListedTarget(name: name.string, origin: "plugin \(image.path)", actions: actions, contracts: contracts)
            }
        }
    }
}
