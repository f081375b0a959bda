@_spi(Faces) import Switchboard
import CSwitchboard
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What every part of a registered class shares: the `sb_class_def`
/// functions and the userdata, freed once the class, its actions and its
/// instances are all gone.
final class CClass: @unchecked Sendable {
    // @unchecked: immutable; what userdata points to is the C code's to guard.

    typealias Create = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> sb_status
    typealias Call = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafePointer<CChar>?,
                                     OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?) -> sb_status
    typealias Destroy = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void

    let name: String
    let create: Create
    let callFn: Call
    let destroy: Destroy?
    let userdata: UnsafeMutableRawPointer?
    let freeUserdata: sb_destroy_fn?

    init(name: String, create: Create, call: Call, destroy: Destroy?, userdata: UnsafeMutableRawPointer?,
         freeUserdata: sb_destroy_fn?) {
        self.name = name
        self.create = create
        self.callFn = call
        self.destroy = destroy
        self.userdata = userdata
        self.freeUserdata = freeUserdata
    }

    deinit { freeUserdata?(userdata) }

    /// A new instance's state; a failure carries the function's status and message.
    func makeState() throws(SwitchboardError) -> UnsafeMutableRawPointer? {
        var state: UnsafeMutableRawPointer?
        let messagesBefore = sb__error_generation()
        let status = create(userdata, &state)
        guard status != SB_OK else { return state }
        if sb__error_generation() == messagesBefore || status.rawValue > sb_status.highest.rawValue {
            let said = sb__error_generation() == messagesBefore ? "" : ": " + lastError
            setLastError("\(name): making an instance failed (\(String(cString: sb_status_string(status)!)))\(said)")
        }
        throw SwitchboardError(status: Int32(bitPattern: status.rawValue))
    }
}

/// One action of a registered class: the class's call function with the
/// action's name and the instance's state.
final class CClassAction: ForeignFunction, @unchecked Sendable {
    // @unchecked: immutable; `action` owns its bytes.

    let owner: CClass
    private let action: UnsafeMutablePointer<CChar>
    private let label: String

    init(owner: CClass, action: String) {
        self.owner = owner
        self.action = strdup(action)!
        self.label = "\(owner.name).\(action)"
        super.init()
    }

    deinit { free(action) }

    override func callNative(_ args: OpaquePointer?, state: UnsafeMutableRawPointer?,
                             out: UnsafeMutablePointer<OpaquePointer?>) -> Int32 {
        out.pointee = nil
        let messagesBefore = sb__error_generation()
        let status = owner.callFn(owner.userdata, state, action, args, out)
        return CFunction.normalize(status, out: out, messagesBefore: messagesBefore, label: label)
    }

    override func call(_ args: Value, state: UnsafeMutableRawPointer?) throws(SwitchboardError) -> Value {
        try callConverting(args, state: state)
    }
}

@_cdecl("sb_class_register")
public func sb_class_register(_ m: sb_mediator_ptr?, _ target: UnsafePointer<CChar>?, _ def: UnsafePointer<sb_class_def>?,
                              _ userdata: UnsafeMutableRawPointer?, _ freeUserdata: sb_destroy_fn?) -> sb_status {
    func refuse(_ message: String) -> sb_status {
        freeUserdata?(userdata)
        return failure(SB_EINVAL, "sb_class_register: " + message)
    }
    guard let m else { return refuse("NULL mediator") }
    guard let def else { return refuse("NULL class definition") }
    // Every field is version 1's: a version this library reads has them all.
    if let problem = versionProblem("sb_class_def", def.pointee.version, known: SB_CLASS_DEF_VERSION) {
        return refuse(problem)
    }
    guard let create = def.pointee.create, let call = def.pointee.call else { return refuse("NULL create or call function") }
    let name: String
    switch validName(target, "target") {
    case .success(let valid): name = valid
    case .failure(let error):
        freeUserdata?(userdata)
        return failure(error)
    }
    guard let names = def.pointee.actions else { return refuse("class \(name) has no action list") }
    var origin = "registered class"
    if let given = def.pointee.origin {
        guard given.pointee != 0, let text = String(validatingCString: given) else {
            return refuse("the origin of class \(name) is empty or not UTF-8")
        }
        origin = text
    }
    // From here the class owns the userdata: if registration fails, its
    // release runs free_userdata.
    let owner = CClass(name: name, create: create, call: call, destroy: def.pointee.destroy, userdata: userdata,
                       freeUserdata: freeUserdata)
    var actions: [(name: String, function: ForeignFunction)] = []
    var contracts: [ExactName: Contract] = [:]
    var i = 0
    while let actionName = names[i] {
        guard i < 100_000 else { return failure(SB_EINVAL, "sb_class_register: class \(name) lists too many actions") }
        guard case .success(let action) = validName(actionName, "action") else {
            return failure(SB_EINVAL, "sb_class_register: class \(name) action #\(i) is empty or not UTF-8")
        }
        if let texts = def.pointee.contracts, let contract = texts[i] {
            guard let text = String(validatingCString: contract) else {
                return failure(SB_EINVAL, "sb_class_register: the contract of \(name).\(action) is not UTF-8")
            }
            do throws(SwitchboardError) {
                contracts[ExactName(action)] = try Contract(parsing: text).validated(for: "\(name).\(action)")
            } catch {
                return failure(error)
            }
        }
        actions.append((action, CClassAction(owner: owner, action: action)))
        i += 1
    }
    let foreign = ForeignTargetClass(origin: origin, actions: actions, contracts: contracts,
                                     create: { () throws(SwitchboardError) in try owner.makeState() },
                                     destroy: { state in owner.destroy?(owner.userdata, state) })
    return Borrowed(CMediator.borrow(m)).read { c in
        do throws(SwitchboardError) {
            try c.mediator.register(foreignClass: foreign, as: name)
            return SB_OK
        } catch {
            return failure(error)
        }
    }
}

@_cdecl("sb_class_unregister_if")
public func sb_class_unregister_if(_ m: sb_mediator_ptr?, _ target: UnsafePointer<CChar>?,
                                   _ userdata: UnsafeRawPointer?) -> sb_status {
    guard let m else { return failure(SB_EINVAL, "sb_class_unregister_if: NULL mediator") }
    let name: String
    switch validName(target, "target") {
    case .success(let valid): name = valid
    case .failure(let error): return failure(error)
    }
    let removed = Borrowed(CMediator.borrow(m)).read { c in
        c.mediator.unregisterClass(target: name) { function in
            (function as? CClassAction).map { UnsafeRawPointer($0.owner.userdata) == userdata } ?? false
        }
    }
    return removed ? SB_OK : failure(SB_ENOTFOUND, "sb_class_unregister_if: \(name) has no class registered with this userdata")
}
