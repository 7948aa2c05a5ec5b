import Foundation
import StuntDouble

/// `/__admin/recordings`: WireMock's recorder. `start` proxies every request (but those of higher-priority
/// stubs) to a target; `stop` makes stubs of what was proxied since, adds them, and writes them to the root
/// folder (`persist`); `snapshot` does the same with the whole journal.
extension AdminAPI {
    /// `POST /__admin/recordings/start`.
    func startRecording(_ body: Data) -> AdminResponse {
        let spec: RecordSpec
        switch RecordSpec.read(body) {
        case .failure(let problems): return Self.invalidSpec(problems.messages)
        case .success(let read): spec = read
        }
        guard let target = spec.target else {
            return Self.invalidSpec(["targetBaseUrl is required: the server to record, such as http://api.example.com"])
        }
        if case .recording = core.recorder.status { return .json(.object([])) }
        let proxy = JSONNode.object([
            ("name", .string("recording \(target.absoluteString)")),
            ("request", .object([("method", .string("ANY"))])),
            ("response", .object([("proxyBaseUrl", .string(target.absoluteString))])),
        ])
        switch store.create(Data(proxy.rendered().utf8)) {
        case .failure(let failure):
            return Self.response(for: failure)
        case .success(let (entry, _)):
            // The requests after this one are the recording's (journal numbers only grow, whatever the clock does).
            let session = Recorder.Session(
                proxyMappingID: entry.id, lastEntryBefore: stubber.journal.last?.number ?? 0, spec: spec)
            if !core.recorder.start(session) { _ = store.remove(id: entry.id) }
            core.logger.info("recording \(target.absoluteString)")
            return .json(.object([]))
        }
    }

    /// `POST /__admin/recordings/stop`.
    func stopRecording() -> AdminResponse {
        guard let session = core.recorder.stop() else {
            return .json(
                .object([
                    (
                        "errors",
                        .array([.object([("code", .number(30)), ("title", .string("Not currently recording."))])])
                    )
                ]),
                status: 400)
        }
        _ = store.remove(id: session.proxyMappingID)
        let entries = stubber.journal.filter { $0.number > session.lastEntryBefore }
        return record(entries, spec: session.spec)
    }

    /// `GET /__admin/recordings/status`.
    func recordingStatus() -> AdminResponse {
        let status =
            switch core.recorder.status {
            case .neverStarted: "NeverStarted"
            case .recording: "Recording"
            case .stopped: "Stopped"
            }
        return .json(.object([("status", .string(status))]))
    }

    /// `POST /__admin/recordings/snapshot`: stubs from the whole journal.
    func snapshot(_ body: Data) -> AdminResponse {
        switch RecordSpec.read(body) {
        case .failure(let problems): return Self.invalidSpec(problems.messages)
        case .success(let spec): return record(stubber.journal, spec: spec)
        }
    }

    /// Makes stubs of journal entries as a spec says, adds them, and writes them when it asks.
    private func record(_ entries: [HTTPJournalEntry], spec: RecordSpec) -> AdminResponse {
        var exchanges: [RecordedStubs.Exchange] = []
        var notKept = 0
        for entry in entries {
            if let pattern = spec.pattern, !pattern.matches(entry.request) { continue }
            if let ids = spec.ids, !ids.contains(AdminJSON.id(ofEntry: entry.number).uuidString.lowercased()) {
                continue
            }
            if let proxied = core.proxiedExchanges.exchange(for: entry.number) {
                exchanges.append(
                    RecordedStubs.Exchange(
                        request: entry.request, isBodyTruncated: entry.isRequestBodyTruncated, status: proxied.status,
                        headers: proxied.headers, body: proxied.body, mayBeEncoded: !proxied.isIdentityEncoded,
                        arrivals: proxied.arrivals,
                        // Through a validating proxy: what the request and the upstream's answer break.
                        contractNotes: entry.annotations.flatMap { annotation in
                            annotation.lines.map {
                                (annotation.name == "requestViolations" ? "request: " : "answer: ") + $0
                            }
                        }))
            } else if entry.decision.plan?.proxy != nil || entry.decision.plan == nil && core.proxy?.serverWide != nil {
                notKept += 1
            } else if spec.allowsNonProxied, let plan = entry.decision.plan, plan.proxy == nil,
                let response = plan.response
            {
                exchanges.append(
                    RecordedStubs.Exchange(
                        request: entry.request, isBodyTruncated: entry.isRequestBodyTruncated,
                        status: response.statusCode.rawValue,
                        headers: response.headers.map { (name: $0.name.rawValue, value: $0.value) },
                        body: response.body,
                        mayBeEncoded: true))
            }
        }
        let root = try? store.writableRoot().get()
        let stubs = RecordedStubs(spec: spec, canExtractBodies: root != nil).stubs(for: exchanges)
        var added: [(id: UUID, json: JSONNode)] = []
        var problems: [String] = []
        if notKept > 0 {
            problems.append(
                "\(notKept) proxied request\(notKept == 1 ? " was" : "s were") left out: the upstream's answer was not "
                    + "kept (longer than \(ProxiedExchanges.byteLimit >> 20) MiB, dropped to stay within that in all, "
                    + "still arriving, or failed)")
        }
        for stub in stubs {
            if let file = stub.bodyFile, let root {
                let url = root.appendingPathComponent("__files").appendingPathComponent(file.name)
                do {
                    try FileManager.default.createDirectory(
                        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try file.data.write(to: url, options: .atomic)
                } catch {
                    problems.append("__files/\(file.name) could not be written: \(error.localizedDescription)")
                    continue
                }
            }
            switch store.create(Data(stub.mapping.rendered().utf8)) {
            case .success(let (entry, _)): added.append((entry.id, entry.json))
            case .failure(let failure):
                problems.append("a recorded stub could not be added: \(Self.describe(failure))")
                if let file = stub.bodyFile, let root {
                    try? FileManager.default.removeItem(
                        at: root.appendingPathComponent("__files").appendingPathComponent(file.name))
                }
            }
        }
        var response: AdminResponse =
            spec.answersIDs
            ? .json(.object([("ids", .array(added.map { .string($0.id.uuidString.lowercased()) }))]))
            : .json(.object([("mappings", .array(added.map(\.json)))]))
        if spec.persists, !added.isEmpty {
            if case .failure(let failure) = store.save(only: Set(added.map(\.id))) {
                // The stubs serve all the same: nothing recorded is lost, and the answer says why nothing was written.
                problems.append("not written to mappings/: \(Self.describe(failure))")
            }
        }
        for problem in problems {
            core.logger.warning("recording: \(problem)")
            response.headers.append(("StuntDouble-Recording-Problem", HeaderText.value(problem)))
        }
        core.logger.info("recorded \(added.count) stub\(added.count == 1 ? "" : "s") from \(exchanges.count) exchanges")
        return response
    }

    private static func describe(_ failure: MappingStore.Failure) -> String {
        switch failure {
        case .invalid(let diagnostics): diagnostics.map(\.description).joined(separator: "; ")
        case .notFound: "no such mapping"
        case .noRoot: "the server has no root folder (start it with --root DIR)"
        case .readOnlyRoot(let display): "the server serves \(display), which is not a folder of yours to write"
        case .io(let message): message
        }
    }

    private static func invalidSpec(_ problems: [String]) -> AdminResponse {
        .json(
            .object([
                (
                    "errors",
                    .array(
                        problems.map { problem in
                            .object([("code", .number(10)), ("title", .string(problem))])
                        })
                )
            ]), status: 422)
    }
}
