/// Named bytes, so that parsers read as what they look for.
extension UInt8 {
    @inlinable public static var newline: UInt8 { UInt8(ascii: "\n") }
    @inlinable public static var carriageReturn: UInt8 { UInt8(ascii: "\r") }
    @inlinable public static var tab: UInt8 { UInt8(ascii: "\t") }
    @inlinable public static var space: UInt8 { UInt8(ascii: " ") }
    @inlinable public static var quote: UInt8 { UInt8(ascii: "\"") }
    @inlinable public static var backslash: UInt8 { UInt8(ascii: "\\") }
    @inlinable public static var openBracket: UInt8 { UInt8(ascii: "[") }
    @inlinable public static var closeBracket: UInt8 { UInt8(ascii: "]") }
    @inlinable public static var openBrace: UInt8 { UInt8(ascii: "{") }
    @inlinable public static var closeBrace: UInt8 { UInt8(ascii: "}") }
    @inlinable public static var colon: UInt8 { UInt8(ascii: ":") }
    @inlinable public static var comma: UInt8 { UInt8(ascii: ",") }
    @inlinable public static var question: UInt8 { UInt8(ascii: "?") }
    @inlinable public static var ampersand: UInt8 { UInt8(ascii: "&") }
    @inlinable public static var equals: UInt8 { UInt8(ascii: "=") }
    @inlinable public static var percent: UInt8 { UInt8(ascii: "%") }
    @inlinable public static var plus: UInt8 { UInt8(ascii: "+") }
    @inlinable public static var minus: UInt8 { UInt8(ascii: "-") }
    @inlinable public static var slash: UInt8 { UInt8(ascii: "/") }
    @inlinable public static var hash: UInt8 { UInt8(ascii: "#") }
    @inlinable public static var at: UInt8 { UInt8(ascii: "@") }
    @inlinable public static var dot: UInt8 { UInt8(ascii: ".") }
    @inlinable public static var zero: UInt8 { UInt8(ascii: "0") }
    @inlinable public static var nine: UInt8 { UInt8(ascii: "9") }
    @inlinable public static var dollar: UInt8 { UInt8(ascii: "$") }
    @inlinable public static var underscore: UInt8 { UInt8(ascii: "_") }
}
