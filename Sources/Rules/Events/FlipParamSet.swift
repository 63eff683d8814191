import Parsing

/// A set of flip parameters in one byte (`duplicate-param`, `bad-encoding`):
/// listed in `FlipParam` order, the order the findings name them in.
package struct FlipParamSet: Sendable, Equatable, ExpressibleByArrayLiteral {
    private var bits: UInt8 = 0

    package init() {}

    package init(arrayLiteral params: FlipParam...) {
        for p in params { insert(p) }
    }

    package var isEmpty: Bool { bits == 0 }

    package func contains(_ p: FlipParam) -> Bool { bits & (1 << UInt8(p.rawValue)) != 0 }

    package mutating func insert(_ p: FlipParam) { bits |= 1 << UInt8(p.rawValue) }

    /// The parameters in `FlipParam` order.
    package var list: [FlipParam] { FlipParam.allCases.filter(contains) }

    /// Their names, comma-separated, as findings word them.
    package var names: String { list.map(\.name).joined(separator: ", ") }
}
