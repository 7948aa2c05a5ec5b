import Foundation
import StuntDouble

/// A compiled response template's parts: text, values to write, and blocks.
indirect enum TemplateNode: Sendable {
    /// Text written as it is.
    case text(String)
    /// `{{expression}}` (escaped for HTML, as WireMock's Handlebars does) or `{{{expression}}}` (as it is).
    case value(TemplateExpression, escaped: Bool)
    /// `{{#helper ...}}...{{else}}...{{/helper}}`.
    case block(TemplateBlock)
    /// `{{#*inline "name"}}...{{/inline}}`: a partial the template defines (for the nodes it is among).
    case partialDefinition(String, [TemplateNode])
    /// `{{> name}}`: a partial rendered in the current context; `offset` locates it.
    case partial(String, offset: Int)
}

/// A block: its helper, what it is given, its body and what `{{else}}` holds.
struct TemplateBlock: Sendable {
    let helper: String
    let arguments: TemplateArguments
    /// `as |item index|`.
    let blockParameters: [String]
    let body: [TemplateNode]
    let inverse: [TemplateNode]
    /// Where the block opens in the template, for errors.
    let offset: Int
}

/// What a helper is given: values in order, and `name=value` options.
struct TemplateArguments: Sendable {
    var positional: [TemplateExpression] = []
    var named: [(name: String, value: TemplateExpression)] = []

    var isEmpty: Bool { positional.isEmpty && named.isEmpty }
}

/// Something a template works out: a path, a literal, or a helper's result.
indirect enum TemplateExpression: Sendable {
    case path(TemplatePath)
    case literal(TemplateValue)
    /// A helper called with arguments (a sub-expression, or a tag whose name is a helper); `offset` locates it.
    case call(String, TemplateArguments, offset: Int)
}

/// `request.path.[0]`, `this`, `../name`, `@index`, a block parameter.
struct TemplatePath: Sendable {
    /// How many `../` it starts with.
    var up = 0
    /// Whether it names a block's data (`@index`, `@key`, `@first`, `@last`).
    var isData = false
    /// The names after `this` (if any), in order.
    var segments: [String] = []
}

/// A template that cannot be compiled: why, and where (a byte offset in the template's text).
struct TemplateSyntaxError: Error, Sendable {
    let message: String
    let offset: Int
}
