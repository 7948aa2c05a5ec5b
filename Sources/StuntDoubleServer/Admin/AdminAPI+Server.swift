import Foundation
import StuntDouble
import StuntDoubleWireMock

/// The server as a whole: health, settings (a global delay), reset of everything, shutdown, and the stubs
/// added from Swift (for the traffic page).
extension AdminAPI {
    /// `GET /__admin/settings`.
    func settings() -> AdminResponse {
        .json(.object([("settings", settingsJSON())]))
    }

    private func settingsJSON() -> JSONNode {
        let delay = core.globalDelay.withLockedValue { $0 }
        var members: [(String, JSONNode)] = [
            ("fixedDelay", .number(Int((delay.fixed.secondsValue * 1000).rounded())))
        ]
        if let random = delay.random { members.append(("delayDistribution", random.json)) }
        if let extended = core.extendedSettings.withLockedValue({ $0 }) { members.append(("extended", extended)) }
        return .object(members)
    }

    /// `POST` or `PUT /__admin/settings`: `{"fixedDelay": milliseconds, "delayDistribution": {...}, "extended":
    /// {...}}`, bare or under `settings`; `null` takes a distribution or the extended settings away.
    func updateSettings(_ body: Data) -> AdminResponse {
        guard let node = JSONNode.parse(lenient: body) else {
            return .error(422, "Send {\"fixedDelay\": milliseconds}.")
        }
        let settings = node["settings"] ?? node
        // Every field is checked before any is changed: a refused update changes nothing.
        let extended = settings["extended"]
        if let extended, extended.members == nil, !Self.isNull(extended) {
            return .error(422, "extended must be a JSON object, such as {\"extended\": {\"tenant\": \"a\"}}.")
        }
        var fixed: Duration?
        if let delay = settings["fixedDelay"] {
            guard case .number(let number) = delay.kind, let milliseconds = Double(number.text), milliseconds >= 0,
                milliseconds <= 3_600_000
            else {
                return .error(422, "fixedDelay must be a number of milliseconds from 0 to 3,600,000.")
            }
            fixed = .milliseconds(milliseconds)
        }
        let randomJSON = settings["delayDistribution"]
        var random: (distribution: GlobalDelayDistribution, json: JSONNode)?
        if let randomJSON, !Self.isNull(randomJSON) {
            switch GlobalDelayDistribution.read(randomJSON, in: Array(body)) {
            case .success(let distribution): random = (distribution, randomJSON)
            case .failure(let problems): return .error(422, problems.text)
            }
        }
        if let extended { core.extendedSettings.withLockedValue { $0 = Self.isNull(extended) ? nil : extended } }
        core.globalDelay.withLockedValue { delay in
            if let fixed { delay.fixed = fixed }
            if randomJSON != nil { delay.random = random }
        }
        return .json(.object([("settings", settingsJSON())]))
    }

    private static func isNull(_ node: JSONNode) -> Bool {
        if case .null = node.kind { true } else { false }
    }

    /// `PATCH /__admin/settings/extended` (WireMock 3): `{"extended": {...}}`'s members replace or join those of
    /// the `extended` settings; the others stay.
    func patchExtendedSettings(_ body: Data) -> AdminResponse {
        guard let patch = JSONNode.parse(lenient: body)?["extended"], let members = patch.distinctMembers else {
            return .error(422, "Send {\"extended\": {...}}: the members to set in the extended settings.")
        }
        core.extendedSettings.withLockedValue { extended in
            var merged = extended ?? .object([])
            for member in members { merged = merged.setting(member.key, to: member.value, atFront: false) }
            extended = merged
        }
        return .json(.object([]))
    }

    /// `POST /__admin/reset`: the mappings the files hold, an empty journal, scenarios and settings as at start.
    func resetAll() -> AdminResponse {
        do {
            try store.reset()
        } catch {
            return .json(AdminJSON.errors(error.diagnostics), status: 422)
        }
        stubber.clearJournal()
        stubber.resetMessageJournal()
        stubber.resetState()
        core.clients.withLockedValue { $0.removeAll() }
        core.webhooks.clear()
        core.proxiedExchanges.removeAll()
        core.globalDelay.withLockedValue { $0 = ServerCore.GlobalDelay() }
        core.extendedSettings.withLockedValue { $0 = nil }
        return .json(.object([]))
    }

    /// `POST /__admin/shutdown`: answers, then stops the server as a signal would.
    func shutdown() -> AdminResponse {
        Task { await self.core.shutdownRequested() }
        return .json(.object([]))
    }

    /// StuntDouble's own endpoint (WireMock has none like it): the stubs added from Swift, which are no
    /// mappings and so not in `/mappings`, for the traffic page.
    func swiftStubs() -> AdminResponse {
        let stubs = stubber.stubs.filter { store.entry(for: $0) == nil }
        return .json(
            .object([
                (
                    "stubs",
                    .array(
                        stubs.map { stub in
                            .object([
                                ("description", .string(stub.description)),
                                ("name", stub.name.map(JSONNode.string) ?? .null),
                                ("methods", .array(stub.stubbedMethods.map { .string($0.rawValue) })),
                                (
                                    "matchers",
                                    .array(
                                        stub.matchers.map {
                                            .string(
                                                (($0 as? any CustomStringConvertible)?.description) ?? "\(type(of: $0))"
                                            )
                                        })
                                ),
                                ("priority", .number(stub.priority)),
                            ])
                        })
                )
            ]))
    }

    /// `GET /__admin/version`, as WireMock 3 answers it: `{"version": "..."}`, or the bare version for a client
    /// that accepts `text/plain`.
    func version(_ request: AdminRequest) -> AdminResponse {
        if request.headers[.accept]?.contains("text/plain") == true {
            var response = AdminResponse.json(.object([]))
            response.contentType = "text/plain"
            response.body = Data(StuntDoubleServerVersion.text.utf8)
            return response
        }
        return .json(.object([("version", .string(StuntDoubleServerVersion.text))]))
    }

    /// `GET /__admin/certs/wiremock-ca.crt`: the authority that signs browser proxying's tunnels, as WireMock
    /// gives its own.
    func authorityCertificate() -> AdminResponse {
        guard let certificates = core.tunnelCertificates else {
            return .error(
                404,
                "Browser proxying is off, so no authority signs certificates: start the server with "
                    + "--enable-browser-proxying.")
        }
        var response = AdminResponse.json(.object([]))
        response.contentType = "application/x-pem-file"
        response.body = Data(certificates.authority.certificatePEM.utf8)
        return response
    }

    /// `GET /__admin/health`.
    func health() -> AdminResponse {
        let uptime = ContinuousClock.now - started
        return .json(
            .object([
                ("status", .string("healthy")), ("message", .string("StuntDouble is ok")),
                ("version", .string(StuntDoubleServerVersion.text)),
                ("uptimeInSeconds", .number(Int(uptime.secondsValue))),
                ("timestamp", .string(AdminJSON.isoDate(Date()))),
                ("mappings", .number(store.entries.count)), ("requests", .number(stubber.receivedCount)),
            ]))
    }
}
