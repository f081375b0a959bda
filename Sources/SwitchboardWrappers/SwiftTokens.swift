/// The tokens of Swift source that ``SwiftTargetSources`` needs to find
/// `Target_` classes and the keys of their tables: words, string literals
/// (their value, when they have no interpolation), and punctuation. Comments
/// are skipped; so are the insides of interpolations. It is not a parser:
/// what it cannot read it says it cannot, and the caller refuses the file's
/// table rather than guessing.
struct SwiftToken: Equatable {
    enum Kind: Equatable {
        /// An identifier, keyword, number or operator run.
        case word(String)
        /// A string literal; nil when it interpolates (its value is known
        /// only at run time).
        case string(String?)
        /// One of ( ) [ ] { } : , ; = < > . @ #
        case punctuation(Character)
    }

    let kind: Kind
    /// 1-based, for messages.
    let line: Int

    var word: String? { if case .word(let w) = kind { w } else { nil } }
    func isPunctuation(_ c: Character) -> Bool { kind == .punctuation(c) }
}

struct SwiftLexError: Error {
    let message: String
    let line: Int
}

enum SwiftLexer {
    static func tokens(_ source: String) throws(SwiftLexError) -> [SwiftToken] {
        var lexer = Lexer(Array(source.unicodeScalars))
        return try lexer.run()
    }
}

private struct Lexer {
    let s: [Unicode.Scalar]
    var i = 0
    var line = 1
    var out: [SwiftToken] = []

    init(_ s: [Unicode.Scalar]) { self.s = s }

    func peek(_ k: Int = 0) -> Unicode.Scalar? { i + k < s.count ? s[i + k] : nil }

    mutating func advance() {
        if s[i] == "\n" { line += 1 }
        i += 1
    }

    mutating func run() throws(SwiftLexError) -> [SwiftToken] {
        while let c = peek() {
            if c == "/" && peek(1) == "/" {
                while let d = peek(), d != "\n" { advance() }
            } else if c == "/" && peek(1) == "*" {
                try skipBlockComment()
            } else if c == "#" || c == "\"" {
                var hashes = 0
                while peek(hashes) == "#" { hashes += 1 }
                if peek(hashes) == "\"" {
                    let start = line
                    out.append(SwiftToken(kind: .string(try stringLiteral(hashes: hashes)), line: start))
                } else {
                    out.append(SwiftToken(kind: .punctuation("#"), line: line))
                    advance()
                }
            } else if "()[]{}:,;=<>.@".unicodeScalars.contains(c) {
                out.append(SwiftToken(kind: .punctuation(Character(c)), line: line))
                advance()
            } else if c.properties.isWhitespace {
                advance()
            } else {
                let start = line
                var word = String.UnicodeScalarView()
                while let d = peek(), !d.properties.isWhitespace, !"()[]{}:,;=<>.@#\"".unicodeScalars.contains(d),
                      !(d == "/" && (peek(1) == "/" || peek(1) == "*")) {
                    word.append(d)
                    advance()
                }
                out.append(SwiftToken(kind: .word(String(word)), line: start))
            }
        }
        return out
    }

    mutating func skipBlockComment() throws(SwiftLexError) {
        let start = line
        var depth = 0
        repeat {
            guard let c = peek() else { throw SwiftLexError(message: "a comment that never ends", line: start) }
            if c == "/" && peek(1) == "*" {
                depth += 1
                advance()
            } else if c == "*" && peek(1) == "/" {
                depth -= 1
                advance()
            }
            advance()
        } while depth > 0
    }

    /// At `#…#"`: reads the literal, returns its value or nil if it
    /// interpolates.
    mutating func stringLiteral(hashes: Int) throws(SwiftLexError) -> String? {
        let start = line
        for _ in 0..<hashes { advance() }
        let multiline = peek(1) == "\"" && peek(2) == "\""
        for _ in 0..<(multiline ? 3 : 1) { advance() }
        if multiline {
            // The text starts on the next line.
            while let c = peek(), c != "\n" {
                guard c == " " || c == "\t" else {
                    throw SwiftLexError(message: "text after the opening \"\"\" of a string", line: line)
                }
                advance()
            }
            if peek() == "\n" { advance() }
        }
        var raw = String.UnicodeScalarView()
        var interpolates = false
        while true {
            guard let c = peek() else { throw SwiftLexError(message: "a string that never ends", line: start) }
            if c == "\n" && !multiline { throw SwiftLexError(message: "a string that never ends", line: start) }
            if c == "\"" && closes(hashes: hashes, multiline: multiline) {
                for _ in 0..<((multiline ? 3 : 1) + hashes) { advance() }
                break
            }
            if c == "\\" && escapeHashesFollow(hashes) {
                // An escape: kept as written (decoded below), or an
                // interpolation, skipped to its closing parenthesis.
                if peek(1 + hashes) == "(" {
                    interpolates = true
                    for _ in 0..<(1 + hashes) { advance() }
                    try skipBalancedParentheses()
                    continue
                }
                for _ in 0..<(1 + hashes) { advance() }
                raw.append("\\")
                if let d = peek() {
                    raw.append(d)
                    advance()
                }
                continue
            }
            // In a raw string, a backslash without the hashes is text: kept
            // escaped, so that unescaping gives it back.
            if c == "\\" { raw.append("\\") }
            raw.append(c)
            advance()
        }
        if interpolates { return nil }
        let text = multiline ? try dedent(String(raw), start: start) : String(raw)
        return try unescape(text, line: start)
    }

    func escapeHashesFollow(_ hashes: Int) -> Bool {
        (0..<hashes).allSatisfy { peek(1 + $0) == "#" }
    }

    func closes(hashes: Int, multiline: Bool) -> Bool {
        let quotes = multiline ? 3 : 1
        return (0..<quotes).allSatisfy { peek($0) == "\"" } && (0..<hashes).allSatisfy { peek(quotes + $0) == "#" }
    }

    /// After `\(`: to just past the matching `)`, strings and comments inside included.
    mutating func skipBalancedParentheses() throws(SwiftLexError) {
        let start = line
        advance()
        var depth = 1
        while depth > 0 {
            guard let c = peek() else { throw SwiftLexError(message: "an interpolation that never ends", line: start) }
            if c == "/" && peek(1) == "*" {
                try skipBlockComment()
            } else if c == "\"" || c == "#" {
                var hashes = 0
                while peek(hashes) == "#" { hashes += 1 }
                if peek(hashes) == "\"" { _ = try stringLiteral(hashes: hashes) } else { advance() }
            } else {
                if c == "(" { depth += 1 }
                if c == ")" { depth -= 1 }
                advance()
            }
        }
    }

    /// A multi-line literal's lines without the closing delimiter's indentation.
    func dedent(_ raw: String, start: Int) throws(SwiftLexError) -> String {
        var lines = raw.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let indent = lines.removeLast()
        guard indent.allSatisfy({ $0 == " " || $0 == "\t" }) else {
            throw SwiftLexError(message: "text before the closing \"\"\" of a string", line: start)
        }
        return try lines.map { line throws(SwiftLexError) -> String in
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { return "" }
            guard line.hasPrefix(indent) else {
                throw SwiftLexError(message: "a line of a multi-line string indented less than its closing \"\"\"", line: start)
            }
            return String(line.dropFirst(indent.count))
        }.joined(separator: "\n")
    }

    /// The escapes of a string literal's text: \n \t \r \0 \\ \" \' \u{…},
    /// and a backslash before a line break, which joins the lines.
    func unescape(_ text: String, line: Int) throws(SwiftLexError) -> String {
        var out = String.UnicodeScalarView()
        var scalars = Array(text.unicodeScalars)[...]
        while let c = scalars.popFirst() {
            guard c == "\\" else { out.append(c); continue }
            guard let e = scalars.popFirst() else { break }
            switch e {
            case "n": out.append("\n")
            case "t": out.append("\t")
            case "r": out.append("\r")
            case "0": out.append("\0")
            case "\\", "\"", "'": out.append(e)
            case "\n": break
            case "u":
                guard scalars.popFirst() == "{", let close = scalars.firstIndex(of: "}"),
                      let value = UInt32(String(String.UnicodeScalarView(scalars[..<close])), radix: 16),
                      let scalar = Unicode.Scalar(value) else {
                    throw SwiftLexError(message: "a \\u escape that is not \\u{hex}", line: line)
                }
                out.append(scalar)
                scalars = scalars[(close + 1)...]
            default:
                if e == " " || e == "\t" {
                    // Backslash, spaces, then the line break: the lines join.
                    while let f = scalars.first, f == " " || f == "\t" { scalars.removeFirst() }
                    if scalars.first == "\n" { scalars.removeFirst(); continue }
                }
                throw SwiftLexError(message: "an escape \\\(e) that Swift does not have", line: line)
            }
        }
        return String(out)
    }
}
