import Foundation
import StuntDouble
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Response sequences, `times(_:)` and scenarios: state that lives in each stubber.
@Suite struct SequenceAndScenarioTests {
    @Test func aSequenceRepeatsItsLastResponseOrCycles() throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/last")
                .stub(for: .get, sequence: [.status(500), .status(200)]))
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/cycle")
                .stub(for: .get, sequence: [.status(500), .status(200)], then: .cycle))
        let last = (0..<4).map { _ in stubber.plan("GET", "https://api.test/last")?.response?.statusCode.rawValue }
        let cycle = (0..<4).map { _ in stubber.plan("GET", "https://api.test/cycle")?.response?.statusCode.rawValue }
        #expect(last == [500, 200, 200, 200])
        #expect(cycle == [500, 200, 500, 200])
    }

    @Test func eachMethodHasItsOwnPlaceInItsSequence() throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/item")
                .stub(for: .get, sequence: [.status(404), .status(200)])
                .stub(for: .put, sequence: [.status(409), .status(204)]))
        #expect(stubber.plan("PUT", "https://api.test/item")?.response?.statusCode == 409)
        #expect(stubber.plan("GET", "https://api.test/item")?.response?.statusCode == 404)
        #expect(stubber.plan("GET", "https://api.test/item")?.response?.statusCode == 200)
        #expect(stubber.plan("PUT", "https://api.test/item")?.response?.statusCode == 204)
    }

    @Test func aRetryingClientSucceedsOnTheThirdAttempt() async throws {
        let stubber = HTTPStubber()
        let flaky = HTTPStubRequest().match(URL: "https://api.test/report")
            .stub(for: .get, sequence: [.status(500), .status(500), .json(#"{"done": true}"#)])
        stubber.add(stub: flaky)
        let session = stubber.stubSession()
        var attempts = 0
        var status = 0
        repeat {
            attempts += 1
            let (_, response) = try await session.data(from: URL(string: "https://api.test/report")!)
            status = (response as? HTTPURLResponse)?.statusCode ?? 0
        } while status >= 500 && attempts < 5
        #expect(status == 200)
        #expect(attempts == 3)
        try stubber.verify(flaky, called: .exactly(3))
    }

    @Test func timesLimitsAnswersThenTheNextStubTakesOver() throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest(name: "fallback").match(URL: "https://api.test/token").stub(
                for: .post, body: "fallback"))
        stubber.add(
            stub: HTTPStubRequest(name: "first two").match(URL: "https://api.test/token").stub(
                for: .post, body: "fresh"
            ).times(2))
        let bodies = (0..<3).map { _ in stubber.bodyText("POST", "https://api.test/token") }
        #expect(bodies == ["fresh", "fresh", "fallback"])
    }

    @Test func anExhaustedStubExplainsItselfInTheReport() throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest(name: "once").match(URL: "https://api.test/once").stub(for: .post, code: .created)
                .times(1))
        #expect(stubber.plan("POST", "https://api.test/once")?.response?.statusCode == .created)
        let report = try #require(try stubber.decision(for: makeRequest("POST", "https://api.test/once")).report)
        let checks = try #require(report.candidates.first?.failedChecks)
        #expect(checks.map(\.matcher) == ["answered fewer than times(1)"])
        #expect(checks.first?.actual == "1 answers")
    }

    @Test func aCartScenario() throws {
        let cart = HTTPStubScenario("cart", initialState: "empty")
        let url = "https://api.test/cart"
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URL: url).stub(for: .get, json: "[]").when(cart, is: "empty"))
        stubber.add(
            stub: HTTPStubRequest().match(URL: url).stub(for: .post, code: .created).when(
                cart, is: "empty", then: "has item"))
        stubber.add(
            stub: HTTPStubRequest().match(URL: url).stub(for: .get, json: #"["book"]"#).when(cart, is: "has item"))
        stubber.add(
            stub: HTTPStubRequest().match(URL: url).stub(for: .delete, code: .noContent).moves(cart, to: "empty"))

        #expect(stubber.bodyText("GET", url) == "[]")
        #expect(stubber.plan("POST", url)?.response?.statusCode == .created)
        #expect(stubber.state(of: cart) == "has item")
        #expect(stubber.bodyText("GET", url) == #"["book"]"#)
        let second = try #require(
            try stubber.decision(for: makeRequest("POST", url)).report, "POST needs an empty cart")
        let failed = try #require(second.candidates.first?.failedChecks.first)
        #expect(failed.matcher == #"scenario "cart" is in state "empty""#)
        #expect(failed.actual == #""has item""#)
        #expect(stubber.plan("DELETE", url)?.response?.statusCode == .noContent)
        #expect(stubber.bodyText("GET", url) == "[]")
        stubber.setState("has item", of: cart)
        #expect(stubber.bodyText("GET", url) == #"["book"]"#)
        stubber.resetState()
        #expect(stubber.state(of: cart) == "empty")
    }

    @Test func stateLivesInEachStubber() throws {
        let flag = HTTPStubScenario("flag")
        let sequence = HTTPStubRequest().match(URL: "https://api.test/seq").stub(
            for: .get, sequence: [.status(201), .status(202)])
        let toggle = HTTPStubRequest().match(URL: "https://api.test/flag").stub(for: .post, code: .ok).moves(
            flag, to: "on")
        let limited = HTTPStubRequest().match(URL: "https://api.test/limited").stub(for: .get, code: .ok).times(1)
        let first = HTTPStubber()
        let second = HTTPStubber()
        for stubber in [first, second] {
            [sequence, toggle, limited].forEach { stubber.add(stub: $0) }
        }
        _ = first.plan("GET", "https://api.test/seq")
        _ = first.plan("POST", "https://api.test/flag")
        _ = first.plan("GET", "https://api.test/limited")
        #expect(first.state(of: flag) == "on")
        #expect(second.state(of: flag) == "started")
        #expect(second.plan("GET", "https://api.test/seq")?.response?.statusCode == 201)
        #expect(second.plan("GET", "https://api.test/limited") != nil)
        #expect(first.plan("GET", "https://api.test/limited") == nil)
    }

    @Test func concurrentRequestsTakeEachSequenceResponseOnce() async throws {
        let stubber = HTTPStubber()
        let responses = (0..<200).map { HTTPStubResponse.status(.ok, body: Data("\($0)".utf8)) }
        stubber.add(stub: HTTPStubRequest().match(URL: "https://api.test/n").stub(for: .get, sequence: responses))
        let session = stubber.stubSession()
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    String(decoding: try await session.data(from: URL(string: "https://api.test/n")!).0, as: UTF8.self)
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(Set(bodies) == Set((0..<200).map { "\($0)" }), "every response once, none twice")
    }

    @Test func concurrentRequestsRespectLimitsAndScenariosExactly() async throws {
        let stubber = HTTPStubber()
        let limited = HTTPStubRequest().match(URL: "https://api.test/l").stub(for: .get, body: "limited").times(10)
        stubber.add(stub: HTTPStubRequest().match(URL: "https://api.test/l").stub(for: .get, body: "fallback"))
        stubber.add(stub: limited)
        // A chain of 50 states: each stub answers in one state and moves to the next.
        let chain = HTTPStubScenario("chain", initialState: "0")
        for step in 0..<50 {
            stubber.add(
                stub: HTTPStubRequest().match(URL: "https://api.test/chain")
                    .stub(for: .get, body: "\(step)").when(chain, is: "\(step)", then: "\(step + 1)"))
        }
        let session = stubber.stubSession()
        let (limitedBodies, chainBodies) = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for index in 0..<100 {
                group.addTask {
                    let url = index % 2 == 0 ? "https://api.test/l" : "https://api.test/chain"
                    let body = String(decoding: try await session.data(from: URL(string: url)!).0, as: UTF8.self)
                    return (url, body)
                }
            }
            var limited: [String] = []
            var chain: [String] = []
            for try await (url, body) in group {
                if url.hasSuffix("/l") { limited.append(body) } else { chain.append(body) }
            }
            return (limited, chain)
        }
        #expect(limitedBodies.filter { $0 == "limited" }.count == 10)
        #expect(limitedBodies.filter { $0 == "fallback" }.count == 40)
        #expect(Set(chainBodies) == Set((0..<50).map { "\($0)" }), "each state answered once, in a chain")
        #expect(stubber.state(of: chain) == "50")
        #expect(stubber.hitCount(of: limited) == 10)
    }

    @Test func journalNumbersFollowTheOrderAnswersWereTaken() async throws {
        let stubber = HTTPStubber()
        let responses = (0..<100).map { HTTPStubResponse.status(.ok, body: Data("\($0)".utf8)) }
        stubber.add(stub: HTTPStubRequest().match(URL: "https://api.test/n").stub(for: .get, sequence: responses))
        stubber.add(stub: HTTPStubRequest().match(URL: "https://api.test/plain").stub(for: .get, body: "plain"))
        let session = stubber.stubSession()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    _ = try await session.data(
                        from: URL(string: index % 2 == 0 ? "https://api.test/n" : "https://api.test/plain")!)
                }
            }
            try await group.waitForAll()
        }
        let journal = stubber.journal
        #expect(journal.map(\.number) == Array(1...200))
        let sequenceBodies = journal.filter { $0.request.url.path == "/n" }
            .map { String(decoding: $0.decision.plan?.body ?? Data(), as: UTF8.self) }
        #expect(sequenceBodies == (0..<100).map { "\($0)" }, "the nth answer taken has the nth number")
        #expect(journal.allSatisfy { $0.completion != nil })
    }

    @Test func aStubCanRequireAStateAndMoveItSeparately() throws {
        let stubber = HTTPStubber()
        let cart = HTTPStubScenario("cart", initialState: "empty")
        let post = HTTPStubRequest().match(URL: "https://api.test/cart").stub(for: .post, code: .created)
            .when(cart, is: "empty").moves(cart, to: "has item")
        stubber.add(stub: post)
        #expect(stubber.plan("POST", "https://api.test/cart")?.response?.statusCode == 201)
        #expect(stubber.state(of: cart) == "has item")
        #expect(stubber.plan("POST", "https://api.test/cart") == nil, "moves(_:to:) kept the required state")

        // `when` after `moves` keeps the move unless it names another.
        let again = HTTPStubRequest().stub(for: .get, code: .ok).moves(cart, to: "checked out").when(
            cart, is: "has item")
        stubber.add(stub: again)
        #expect(stubber.plan("GET", "https://api.test/cart") != nil)
        #expect(stubber.state(of: cart) == "checked out")
    }

    @Test func aStubCanTakePartInTwoScenarios() throws {
        let stubber = HTTPStubber()
        let session = HTTPStubScenario("session", initialState: "signed in")
        let cart = HTTPStubScenario("cart", initialState: "empty")
        let checkout = HTTPStubRequest(name: "checkout").match(URL: "https://api.test/checkout")
            .stub(for: .post, code: .ok)
            .when(session, is: "signed in").when(cart, is: "has item", then: "empty")
        stubber.add(stub: checkout)
        let refused = try #require(try stubber.decision(for: makeRequest("POST", "https://api.test/checkout")).report)
        #expect(refused.description.contains(#"✗ scenario "cart" is in state "has item""#))
        #expect(refused.description.contains(#"✓ scenario "session" is in state "signed in""#))

        stubber.setState("has item", of: cart)
        #expect(stubber.plan("POST", "https://api.test/checkout")?.response?.statusCode == 200)
        #expect(stubber.state(of: cart) == "empty")
        stubber.setState("has item", of: cart)
        stubber.setState("signed out", of: session)
        #expect(stubber.plan("POST", "https://api.test/checkout") == nil, "both states are required")
    }

    @Test func stubsThatCanNeverAnswerSaySo() async throws {
        let stubber = HTTPStubber()
        let negative = HTTPStubRequest().match(URL: "https://api.test/negative").stub(for: .get, code: .ok).times(-1)
        let empty = HTTPStubRequest().match(URL: "https://api.test/empty").stub(for: .get, sequence: [])
        stubber.add(stub: negative)
        stubber.add(stub: empty)
        #expect(negative.problems.map(\.code) == [.invalidStub])
        #expect(empty.problems.first?.message.contains("empty") == true)
        await #expect {
            try await stubber.stubSession().data(from: URL(string: "https://api.test/empty")!)
        } throws: { error in
            (error as? HTTPStubberError)?.code == .invalidStub
        }
        let report = try #require(try stubber.decision(for: makeRequest("GET", "https://api.test/negative")).report)
        #expect(report.problems.contains { $0.code == .invalidStub })
    }
}
