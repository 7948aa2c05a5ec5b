import Foundation
import StuntDouble

extension ResponseSpec {
    /// A templated response's compiled parts, rendered for each request.
    struct Templates: Sendable {
        /// The body's template (`body`, `jsonBody`, or a body file's text).
        var body: ResponseTemplate?
        /// A `bodyFileName` that names its file from the request (`{{request.pathSegments.[1]}}.json`).
        var bodyFileName: ResponseTemplate?
        /// Every value of each header with a templated value, in order (`Set-Cookie` may have several).
        var headers: [(name: HTTPHeaders.Name, templates: [ResponseTemplate])] = []
        /// A `proxyBaseUrl` that is a template.
        var proxyBaseURL: ResponseTemplate?
        /// `additionalProxyRequestHeaders` values that are templates.
        var proxyHeaders: [(name: String, template: ResponseTemplate)] = []
        /// The templated fields of `serverSentEvents`' events.
        var events: [EventTemplates] = []
        /// `transformerParameters`, which templates read as `parameters`.
        let parameters: [(key: String, value: TemplateValue)]
        /// Whether a body file is sent as it is (`transformerParameters.disableBodyFileTemplating`).
        var isBodyFileTemplated = true
        /// Whether `{{value}}` is escaped for HTML (a templated `bodyFileName`'s file is compiled per request).
        var escapesHTML = false
        let environment: TemplateEnvironment
        /// Where a templated `bodyFileName` is read from.
        let filesDirectory: URL?

        init(parameters: [(key: String, value: TemplateValue)], environment: TemplateEnvironment, filesDirectory: URL?)
        {
            self.parameters = parameters
            self.environment = environment
            self.filesDirectory = filesDirectory
        }

        /// Renders the templates for a request into a response's storage.
        func render(for request: HTTPIncomingRequest, into storage: inout HTTPStubResponse.Storage) {
            var failure: (place: String, message: String)?
            func rendered(_ template: ResponseTemplate, _ place: @autoclosure () -> String) -> String {
                switch template.renderResult(for: request, parameters: parameters, environment: environment) {
                case .success(let text):
                    return text
                case .failure(let error):
                    if failure == nil { failure = (place(), error.message) }
                    return ""
                }
            }
            defer {
                if let failure {
                    storage.failWith(
                        "The response template (\(failure.place)) cannot be rendered: \(failure.message)\n")
                }
            }
            var body = storage.body
            if let bodyFileName {
                let name = rendered(bodyFileName, "bodyFileName")
                guard failure == nil else { return }
                switch StubFileReader.readBodyFile(name, in: filesDirectory) {
                case .success(let data) where !isBodyFileTemplated:
                    body = data
                case .success(let data):
                    // The file's text is a template too, compiled now (its name is only known now).
                    do {
                        body = Data(
                            rendered(
                                try ResponseTemplate(String(decoding: data, as: UTF8.self), escapesHTML: escapesHTML),
                                "__files/\(name)"
                            ).utf8)
                    } catch {
                        return storage.failWith(
                            "The response template in __files/\(name) cannot be compiled: \(error).\n")
                    }
                case .failure(let problem):
                    return storage.failWith(problem.message + "\n")
                }
            } else if let template = self.body {
                body = Data(rendered(template, "body").utf8)
            }
            if !events.isEmpty, var stream = storage.eventStream {
                for templates in events {
                    let place = "serverSentEvents.events[\(templates.index)]"
                    var event = stream.events[templates.index]
                    if let data = templates.data { event.data = rendered(data, place + ".data") }
                    if let type = templates.event { event.event = rendered(type, place + ".event") }
                    if let id = templates.id { event.id = rendered(id, place + ".id") }
                    stream.events[templates.index] = event
                }
                storage.eventStream = stream
            }
            var headers = storage.headers
            for (name, templates) in self.headers {
                headers.remove(name)
                for template in templates {
                    headers.add(name: name, value: rendered(template, "headers.\(name)"))
                }
            }
            if body != storage.body {
                // The length the file gave was the template's.
                headers.remove(.contentLength)
                storage.body = body
            }
            storage.headers = headers
            if !proxyHeaders.isEmpty, var proxy = storage.proxy {
                for (name, template) in proxyHeaders {
                    proxy.additionalHeaders[name] = rendered(template, "additionalProxyRequestHeaders.\(name)")
                }
                storage.proxy = proxy
            }
            if let proxyBaseURL, var proxy = storage.proxy {
                let text = rendered(proxyBaseURL, "proxyBaseUrl")
                guard failure == nil else { return }
                guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                    url.host != nil
                else {
                    storage.proxy = nil
                    return storage.failWith("The proxyBaseUrl template gave \"\(text)\", not an http or https URL.\n")
                }
                proxy.baseURL = url
                storage.proxy = proxy
            }
        }
    }
}

extension HTTPStubResponse.Storage {
    /// Makes the response a stub file's own `500`: the text says what cannot be served and why.
    mutating func failWith(_ text: String) {
        eventStream = nil
        statusCode = .internalServerError
        headers = ["Content-Type": "text/plain; charset=utf-8"]
        body = Data(text.utf8)
    }
}
