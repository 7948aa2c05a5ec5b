import Foundation

extension ResponseSpec {
    /// A templated response's compiled parts, rendered for each request.
    struct Templates: Sendable {
        /// The body's template (`body`, `jsonBody`, or a body file's text).
        var body: ResponseTemplate?
        /// A `bodyFileName` that names its file from the request (`{{request.pathSegments.[1]}}.json`).
        var bodyFileName: ResponseTemplate?
        /// Header values that are templates.
        var headers: [(name: HTTPHeaders.Name, template: ResponseTemplate)] = []
        /// A `proxyBaseUrl` that is a template.
        var proxyBaseURL: ResponseTemplate?
        /// `transformerParameters`, which templates read as `parameters`.
        let parameters: [String: String]
        let environment: TemplateEnvironment
        /// Where a templated `bodyFileName` is read from.
        let filesDirectory: URL?

        init(parameters: [String: String], environment: TemplateEnvironment, filesDirectory: URL?) {
            self.parameters = parameters
            self.environment = environment
            self.filesDirectory = filesDirectory
        }

        /// Renders the templates for a request into a response's storage.
        func render(for request: HTTPIncomingRequest, into storage: inout HTTPStubResponse.Storage) {
            func rendered(_ template: ResponseTemplate) -> String {
                template.render(for: request, parameters: parameters, environment: environment)
            }
            var body = storage.body
            if let bodyFileName {
                let name = rendered(bodyFileName)
                switch StubFileReader.readBodyFile(name, in: filesDirectory) {
                case .success(let data):
                    // The file's text is a template too, compiled now (its name is only known now).
                    do {
                        body = Data(rendered(try ResponseTemplate(String(decoding: data, as: UTF8.self))).utf8)
                    } catch {
                        return storage.failWith(
                            "The response template in __files/\(name) cannot be compiled: \(error).\n")
                    }
                case .failure(let problem):
                    return storage.failWith(problem.message + "\n")
                }
            } else if let template = self.body {
                body = Data(rendered(template).utf8)
            }
            var headers = storage.headers
            for (name, template) in self.headers {
                headers[name] = rendered(template)
            }
            if body != storage.body {
                // The length the file gave was the template's.
                headers.remove(.contentLength)
                storage.body = body
            }
            storage.headers = headers
            if let proxyBaseURL, var proxy = storage.proxy {
                let text = rendered(proxyBaseURL)
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
        statusCode = .internalServerError
        headers = ["Content-Type": "text/plain; charset=utf-8"]
        body = Data(text.utf8)
    }
}
