// The calls of the DocC article "Calling a Feature by Name"
// (Sources/Switchboard/Switchboard.docc/CallingByName.md shows them).
import Switchboard
import Testing

func profileCalls(featureModule: String) async throws -> [Value] {
    // Target_<Name> classes are found in these modules, by name.
    let mediator = Mediator(modules: [featureModule])

    // ["user": "ada", "posts": 3]
    let profile = try await mediator.call(target: "Profile", action: "show", params: ["user": "ada"])
    let posts = profile["posts"]?.intValue ?? 0  // 3

    // A name the target has no action for: its notFound answers.
    let other = try await mediator.call(target: "Profile", action: "edit")  // "Profile has no such action"
    return [profile, .int(posts), other]
}

func registeredCalls() async throws -> Value {
    let mediator = Mediator()
    // A closure registered under a target's name and an action's.
    try mediator.register(target: "Settings", action: "theme") { params in
        params["dark"] == true ? "dark" : "light"
    }
    return try await mediator.call(target: "Settings", action: "theme", params: ["dark": true])  // "dark"
}

func profileName(_ mediator: Mediator, user: String) async -> String {
    do {
        let profile = try await mediator.call(target: "Profile", action: "show", params: ["user": .string(user)])
        return profile["user"]?.string ?? ""
    } catch {
        // error is a SwitchboardError: switch on its code, with a default
        // (a release may add codes).
        switch error.code {
        case .noTarget, .noAction: return "no profile feature: \(error.message)"
        case .badParams: return "bad request: \(error.message)"
        default: return "failed: \(error)"
        }
    }
}

// Params and results can be Codable types.
struct Address: Codable, Equatable {
    var street: String
    var city: String
}

func codableCalls() async throws -> Address {
    let mediator = Mediator()
    try mediator.register(target: "Maps", action: "normalize") { params in
        var address = try params.decode(Address.self)
        address.city = address.city.uppercased()
        return try Value(encoding: address)
    }
    let result = try await mediator.call(target: "Maps", action: "normalize",
                                         params: Params(encoding: Address(street: "Main St", city: "Oslo")))
    return try result.decode(Address.self)  // Address(street: "Main St", city: "OSLO")
}

@Suite("DocC article: Calling a Feature by Name")
struct CallingByNameArticle {
    @Test("a Target_ class answers by name; notFound answers what it lacks")
    func byName() async throws {
        let results = try await profileCalls(featureModule: "Features")
        #expect(results == [["user": "ada", "posts": 3], 3, "Profile has no such action"])
    }

    @Test("a registered closure answers")
    func registered() async throws {
        #expect(try await registeredCalls() == "dark")
    }

    @Test("failures say why, by code")
    func failures() async {
        let linked = Mediator(modules: ["Features"])
        #expect(await profileName(linked, user: "ada") == "ada")
        #expect(await profileName(linked, user: "") == "bad request: Profile.show needs a user")
        let unlinked = Mediator(modules: ["NotLinked"])
        #expect(await profileName(unlinked, user: "ada").hasPrefix("no profile feature: no target named \"Profile\""))
    }

    @Test("Codable params and results")
    func codable() async throws {
        #expect(try await codableCalls() == Address(street: "Main St", city: "OSLO"))
    }
}
