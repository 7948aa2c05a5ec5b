import Foundation
import StuntDouble
import Testing

@testable import StuntDoubleOpenAPI

/// Generated sequences of requests to the kennel's dogs (made, read, replaced, merged, patched, removed, listed
/// with filters and pages, some refused by the document), each answer compared with a model of what a
/// collection keeps: 6 seeds of 100 requests.
@Suite("A stateful OpenAPI mock, against a model")
struct StatefulSequenceTests {
    /// What the model knows of a dog.
    struct Dog: Equatable {
        var name: String
        var status: String
    }

    struct Model {
        var dogs: [Int: Dog] = [:]
        var order: [Int] = []
        var highest = 0

        mutating func put(_ id: Int, _ dog: Dog) {
            if dogs.updateValue(dog, forKey: id) == nil { order.append(id) }
            highest = max(highest, id)
        }

        mutating func remove(_ id: Int) {
            dogs[id] = nil
            order.removeAll { $0 == id }
        }
    }

    struct Draws {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func everyAnswerIsTheModels(seed: UInt64) throws {
        let kennel = StatefulMockTests.Kennel()
        var model = Model()
        var draws = Draws(state: seed)
        let names = ["Rex", "Fido", "Luna", "Bolt", ""]
        let statuses = ["available", "adopted"]
        for step in 0..<100 {
            let id = 1 + draws.next(12)
            let name = names[draws.next(names.count)]
            let status = draws.next(3) == 0 ? nil : statuses[draws.next(2)]
            let members = [#""name": "\#(name)""#] + (status.map { [#""status": "\#($0)""#] } ?? [])
            let context = "seed \(seed), step \(step)"
            switch draws.next(7) {
            case 0:
                let givesID = draws.next(4) == 0
                let body = "{" + (members + (givesID ? [#""id": \#(id)"#] : [])).joined(separator: ", ") + "}"
                let answer = try kennel.send(.post, "/dogs", json: body)
                if name.isEmpty {
                    #expect(answer.status == 422, "\(context): \(body)")
                } else if givesID, model.dogs[id] != nil {
                    #expect(answer.status == 409, "\(context): \(body)")
                } else {
                    let made = givesID ? id : model.highest + 1
                    #expect(answer.status == 201, "\(context): \(body)")
                    #expect((answer.json as? [String: Any])?["id"] as? Int == made, "\(context)")
                    model.put(made, Dog(name: name, status: status ?? "available"))
                }
            case 1:
                let answer = try kennel.send(.get, "/dogs/\(id)")
                try expect(answer, is: model.dogs[id], context)
            case 2:
                let answer = try kennel.send(.put, "/dogs/\(id)", json: "{" + members.joined(separator: ", ") + "}")
                if name.isEmpty {
                    #expect(answer.status == 422, "\(context)")
                } else if model.dogs[id] == nil {
                    #expect(answer.status == 404, "\(context)")
                } else {
                    model.put(id, Dog(name: name, status: status ?? "available"))
                    try expect(answer, is: model.dogs[id], context)
                }
            case 3:
                // A merge patch: a member given changes, one left out stays; `null` for the name would break
                // the document.
                let clearsName = draws.next(5) == 0
                let changes =
                    (name.isEmpty ? [] : [#""name": "\#(name)""#]) + (status.map { [#""status": "\#($0)""#] } ?? [])
                let patch = clearsName ? #"{"name": null}"# : "{" + changes.joined(separator: ", ") + "}"
                let answer = try kennel.send(
                    .patch, "/dogs/\(id)", json: patch, contentType: "application/merge-patch+json")
                guard var dog = model.dogs[id] else {
                    #expect(answer.status == 404, "\(context)")
                    continue
                }
                if clearsName {
                    #expect(answer.status == 422, "\(context)")
                    continue
                }
                if !name.isEmpty { dog.name = name }
                if let status { dog.status = status }
                model.put(id, dog)
                try expect(answer, is: dog, context)
            case 4:
                let expected = statuses[draws.next(2)]
                let patch =
                    #"[{"op": "test", "path": "/status", "value": "\#(expected)"}, "#
                    + #"{"op": "replace", "path": "/name", "value": "\#(name.isEmpty ? "Max" : name)"}]"#
                let answer = try kennel.send(
                    .patch, "/dogs/\(id)", json: patch, contentType: "application/json-patch+json")
                guard var dog = model.dogs[id] else {
                    #expect(answer.status == 404, "\(context)")
                    continue
                }
                guard dog.status == expected else {
                    #expect(answer.status == 409, "\(context)")
                    continue
                }
                dog.name = name.isEmpty ? "Max" : name
                model.put(id, dog)
                try expect(answer, is: dog, context)
            case 5:
                let answer = try kennel.send(.delete, "/dogs/\(id)")
                #expect(answer.status == (model.dogs[id] == nil ? 404 : 204), "\(context)")
                model.remove(id)
            default:
                let limit = 1 + draws.next(5)
                let offset = draws.next(4)
                let filter = draws.next(2) == 0 ? statuses[draws.next(2)] : nil
                let query = "?limit=\(limit)&offset=\(offset)" + (filter.map { "&status=\($0)" } ?? "")
                let answer = try kennel.send(.get, "/dogs" + query)
                let matching = model.order.filter { filter == nil || model.dogs[$0]?.status == filter }
                let expected = Array(matching.dropFirst(offset).prefix(limit))
                let ids = (answer.json as? [[String: Any]])?.compactMap { $0["id"] as? Int }
                #expect(ids == expected, "\(context): GET /dogs\(query)")
            }
        }
    }

    private func expect(_ answer: HTTPResponsePlan, is dog: Dog?, _ context: String) throws {
        guard let dog else {
            #expect(answer.status == 404, "\(context)")
            return
        }
        #expect(answer.status == 200, "\(context): \(answer.text)")
        let json = try #require(answer.json as? [String: Any], "\(context)")
        #expect(Dog(name: json["name"] as? String ?? "", status: json["status"] as? String ?? "") == dog, "\(context)")
        #expect(answer.response?.headers["StuntDouble-Violations"] == nil, "\(context)")
    }
}
