import Foundation
import StuntDouble

/// Calls a stub server makes once a stub's response has been sent: a mapping's webhooks (``WebhookSpec``), an
/// OpenAPI operation's callbacks. Attached to a stub under `[any StubFollowUp].self` (a mapping's webhooks under
/// `[WebhookSpec].self`); `HTTPStubRequest.followUps` reads both.
package protocol StubFollowUp: Sendable {
    /// The calls to make after `response` answered `request`: none for an exchange this does not follow.
    /// - Parameters:
    ///   - request: The request the stub answered.
    ///   - response: The response it answered with, or `nil` when it forwarded the request or failed.
    /// - Returns: The calls, in the order they are sent.
    func calls(after request: HTTPIncomingRequest, answered response: HTTPResponsePlan.Response?) -> [WebhookCall]
}

/// Webhooks a stub server fires when asked through its admin API, by name, to a URL the caller gives: an
/// OpenAPI 3.1 document's `webhooks`. Attached to a stub under `(any NamedWebhooks).self`.
package protocol NamedWebhooks: Sendable {
    /// Each webhook: its name, its method, and where it is written (`shop.yaml:40:5`).
    var webhookList: [(name: String, method: String, origin: String)] { get }

    /// The call that fires a webhook.
    /// - Parameters:
    ///   - name: The webhook's name.
    ///   - method: Which of its operations, when it has more than one (`nil`: the first).
    ///   - url: Where to send it.
    ///   - body: A body to send instead of the document's example (checked all the same), or `nil`.
    /// - Returns: The call, or why it cannot be made (an unknown name or method).
    func call(named name: String, method: String?, to url: String, body: Data?) -> Result<WebhookCall, WebhookRefusal>
}

/// Why a named webhook cannot be fired: what was asked for, and what there is.
package struct WebhookRefusal: Error, Sendable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}

/// One webhook call, rendered for a request: what a stub server sends.
package struct WebhookCall: Sendable {
    /// The method as rendered.
    package let method: String
    /// The URL as rendered.
    package let urlText: String
    package let headers: [(name: String, value: String)]
    /// The body, or `nil`.
    package let body: Data?
    /// How long after the response the call is made.
    package let delay: Duration
    /// Where the webhook is written.
    package let origin: String
    /// What the call breaks that the sender reports with it (a body its document's schema refuses).
    package var warnings: [String] = []
    /// Why the call cannot be made, found while rendering it (a runtime expression that names nothing).
    package var refusal: String?
    /// Checks the target's answer (status, headers, the first 64 KiB of its body): what it breaks, if anything.
    package var answerCheck: (@Sendable (Int, HTTPHeaders, Data) -> [String])?

    package init(
        method: String, urlText: String, headers: [(name: String, value: String)], body: Data?, delay: Duration,
        origin: String
    ) {
        self.method = method
        self.urlText = urlText
        self.headers = headers
        self.body = body
        self.delay = delay
        self.origin = origin
    }

    /// Why the call cannot be made (a URL that is not http or https, a method that is not a token), or `nil`.
    package var problem: String? {
        if let refusal { return refusal }
        guard let url = URL(string: urlText), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            url.host != nil
        else {
            return "its url is \"\(urlText)\", not an http or https URL"
        }
        if method.isEmpty || !method.utf8.allSatisfy(HTTPResponsePlan.Response.isTokenByte) {
            return "its method is \"\(method)\", not an HTTP method (such as POST)"
        }
        return nil
    }
}
