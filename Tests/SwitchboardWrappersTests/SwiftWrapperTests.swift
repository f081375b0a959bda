// The Swift wrappers as `switchboard gen --lang swift` and the
// `switchboard-wrappers` plugin write them: lowerCamelCase names, internal or
// public, and the Target_ classes they are made from, read from Swift
// sources without building them (SwiftTargetSources).
import Switchboard
import SwitchboardWrappers
import Testing

@Suite("Swift wrappers from Swift sources")
struct SwiftWrapperTests {
    /// A feature module as an app writes it: one class the mediator can
    /// find, one it cannot (private), and a contract for each kind of action.
    static let feature = #"""
        import Switchboard

        final class Target_user_profile: Target {
            static let actions: Actions<Target_user_profile> = [
                "show-page": { _, params in .dict(params) },
                "list": { _, _ in .array([]) },
                "noContract": { _, _ in .null },
            ]
            static let asyncActions: AsyncActions<Target_user_profile> = [
                "fetchAvatar": { _, _ in .bytes([]) },
            ]
            static let contracts: Contracts = [
                "show-page": "user_id: int -- whose page\nanimated: bool?\n-> dict",
                "list": "-> array",
                "fetchAvatar": "size: int?\n-> bytes",
            ]
        }

        private final class Target_Hidden: Target {
            static let actions: Actions<Target_Hidden> = ["x": { _, _ in .null }]
            static let contracts: Contracts = ["x": "-> int"]
        }
        """#

    private func file(_ source: String = feature, access: SwiftWrappers.Access = .internal) throws -> GeneratedFile {
        let catalogue = try SwiftTargetSources.catalogue(of: [(path: "Feature/Profile.swift", text: source)])
        let targets = try WrapperTarget.all(in: catalogue, only: [])
        #expect(targets.map(\.name) == ["user_profile"], "the private class is not found by name, so it gets no wrapper")
        return SwiftWrappers.file(for: try #require(targets.first), access: access)
    }

    @Test("methods are lowerCamelCase: target and action words joined, labels from the params")
    func lowerCamelCase() throws {
        let generated = try file()
        #expect(generated.name == "Mediator+UserProfile.swift")
        #expect(generated.text.contains("    func userProfileShowPage(userId: Int, animated: Bool? = nil,"))
        #expect(generated.text.contains("    func userProfileList(cacheTarget: Bool = false) throws(SwitchboardError) -> [Value] {"))
        #expect(generated.text.contains(#"params["user_id"] = .int(Int64(userId))"#),
                "the label is camelCase, the key stays the contract's")
        #expect(generated.text.contains(#"try callAndWait(target: "user_profile", action: "show-page""#))
        #expect(!generated.text.contains("user_profile_"), "no snake_case method name is left")
        #expect(generated.text.contains("// Without a contract, so without a wrapper: noContract."))
    }

    @Test("an action in asyncActions gets an async method that awaits call(...)")
    func asyncAction() throws {
        let text = try file().text
        #expect(text.contains("    func userProfileFetchAvatar(size: Int? = nil,\n"))
        #expect(text.contains(" options: CallOptions = .none) async throws(SwitchboardError) -> [UInt8] {\n"))
        #expect(text.contains(#"try await call(target: "user_profile", action: "fetchAvatar", params: params, options: options)"#))
    }

    @Test("internal by default; public on request, for wrappers in a module of their own")
    func access() throws {
        let internalText = try file(access: .internal).text
        let publicText = try file(access: .public).text
        #expect(!internalText.contains("public "))
        let funcs = publicText.split(separator: "\n").filter { $0.contains("func ") }
        #expect(funcs.count == 3)
        #expect(funcs.allSatisfy { $0.hasPrefix("    public func userProfile") })
    }

    @Test("a wrapper never takes the name of one of Mediator's own members")
    func mediatorMembers() throws {
        let source = """
            final class Target_call: Target {
                static let actions: Actions<Target_call> = ["and_wait": { _, _ in .null }]
                static let contracts: Contracts = ["and_wait": "-> any"]
            }
            """
        let catalogue = try SwiftTargetSources.catalogue(of: [(path: "A.swift", text: source)])
        let target = try #require(try WrapperTarget.all(in: catalogue, only: []).first)
        #expect(SwiftWrappers.file(for: target).text.contains("func callAndWait_(cacheTarget: Bool = false)"))
    }

    @Test("what the reader cannot know for sure is refused with its file and line, not guessed")
    func refusals() {
        let interpolated = """
            final class Target_A: Target {
                static let actions: Actions<Target_A> = ["go": { _, _ in .null }]
                static let contracts: Contracts = ["go": "n: \\(kind)"]
            }
            """
        let unknownAction = """
            final class Target_A: Target {
                static let actions: Actions<Target_A> = ["go": { _, _ in .null }]
                static let contracts: Contracts = ["lsit": "-> array"]
            }
            """
        let badContract = """
            final class Target_A: Target {
                static let actions: Actions<Target_A> = ["go": { _, _ in .null }]
                static let contracts: Contracts = ["go": "n: nosuchtype"]
            }
            """
        for (source, expected) in [(interpolated, "A.swift:3: Target_A.contracts[\"go\"]: not a string literal"),
                                   (unknownAction, "A.swift:3: Target_A.contracts[\"lsit\"]: Target_A has no action \"lsit\""),
                                   (badContract, "A.swift:3: Target_A.contracts[\"go\"]: ")] {
            #expect {
                _ = try SwiftTargetSources.catalogue(of: [(path: "A.swift", text: source)])
            } throws: { error in
                (error as? WrapperError)?.description.hasPrefix(expected) == true
            }
        }
    }
}
