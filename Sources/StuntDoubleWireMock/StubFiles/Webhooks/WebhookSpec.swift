import Foundation
import StuntDouble

/// A webhook of a stub mapping (`postServeActions` or `serveEventListeners` named `webhook`), compiled once
/// when the file is read and rendered for each request its stub answers: WireMock's webhooks extension.
///
/// Every field but `base64Body` is a template, rendered with the answered request as `originalRequest` and the
/// webhook's parameters as `parameters`, escaped as WireMock 2.35's webhooks escape (`{{{ }}}` for raw text).
/// A stub server sends the call after the response has been sent, after the webhook's delay.
package struct WebhookSpec: StubFollowUp {
    /// The method (`GET` unless given); sent as written.
    let method: ResponseTemplate
    let url: ResponseTemplate
    let headers: [(name: String, value: ResponseTemplate)]
    let body: Body
    /// The delay before the call, drawn for each call.
    let delay: ResponseSpec.DelayDistribution?
    /// Every parameter as written (known ones included, as WireMock gives them), for templates.
    let parameters: TemplateValue
    let environment: TemplateEnvironment
    /// Where the webhook is written: `mappings/orders.json:12:9`.
    package let origin: String

    /// A webhook's body.
    enum Body: Sendable {
        case none
        case template(ResponseTemplate)
        case bytes(Data)
    }

    /// The methods WireMock's webhooks send a body with (written exactly so).
    static let methodsWithBody: Set<String> = ["POST", "PUT", "PATCH"]

    /// The call to make after a request the stub answered (whatever the response was).
    package func calls(after request: HTTPIncomingRequest, answered response: HTTPResponsePlan.Response?)
        -> [WebhookCall]
    {
        [render(for: request)]
    }

    /// The call to make for a request the stub answered.
    package func render(for request: HTTPIncomingRequest) -> WebhookCall {
        let root: [(key: String, value: TemplateValue)] = [
            ("originalRequest", .lazy(RequestModel(request))), ("parameters", parameters),
        ]
        func rendered(_ template: ResponseTemplate) -> String {
            template.render(root: root, environment: environment)
        }
        let method = rendered(self.method)
        let urlText = rendered(url)
        var body: Data?
        if Self.methodsWithBody.contains(method) {
            switch self.body {
            case .none: body = nil
            case .template(let template): body = Data(rendered(template).utf8)
            case .bytes(let data): body = data
            }
        }
        // A random draw can be anything (a lognormal one with a large sigma): at most a year, as a response's.
        let drawn = delay?.sample() ?? 0
        let seconds = drawn.isFinite ? min(max(drawn, 0), HTTPResponsePlan.maximumSeconds) : 0
        return WebhookCall(
            method: method, urlText: urlText, headers: headers.map { ($0.name, rendered($0.value)) }, body: body,
            delay: .milliseconds(Int64((seconds * 1000).rounded())), origin: origin)
    }
}

extension HTTPStubRequest {
    /// The webhooks of the stub-file mapping the stub was made from, which a stub server sends after answering.
    package var webhooks: [WebhookSpec] { attachments[[WebhookSpec].self] ?? [] }

    /// Every call a stub server makes after the stub answers: its mapping's webhooks, then what other modules
    /// attached (an OpenAPI document's callbacks, under `[any StubFollowUp].self`).
    package var followUps: [any StubFollowUp] {
        let webhooks = self.webhooks
        let attached = attachments[[any StubFollowUp].self] ?? []
        return webhooks.isEmpty ? attached : webhooks + attached
    }

    /// The webhooks a stub server may be asked to fire by name (an OpenAPI 3.1 document's `webhooks`).
    package var namedWebhooks: (any NamedWebhooks)? { attachments[(any NamedWebhooks).self] }
}
