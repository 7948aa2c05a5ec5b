import Foundation
import StuntDouble

/// `/__admin/scenarios`: the scenarios of the mappings, their states, reset and set by name.
extension AdminAPI {
    /// `GET /__admin/scenarios`.
    func listScenarios() -> AdminResponse {
        .json(
            .object([
                (
                    "scenarios",
                    .array(
                        store.scenarios.map { scenario in
                            .object([
                                ("id", .string(scenario.name)), ("name", .string(scenario.name)),
                                ("state", .string(scenario.state)),
                                ("possibleStates", .array(scenario.possibleStates.map(JSONNode.string))),
                                ("mappings", .array(scenario.mappings)),
                            ])
                        })
                )
            ]))
    }

    /// `POST /__admin/scenarios/reset`: every scenario back to its first state.
    func resetScenarios() -> AdminResponse {
        for scenario in stubber.namedScenarios.values {
            stubber.setState(scenario.initialState, of: scenario)
        }
        return .json(.object([]))
    }

    /// `PUT /__admin/scenarios/{name}/state` with `{"state": "..."}`.
    func setScenarioState(_ name: String, _ body: Data) -> AdminResponse {
        guard let scenario = stubber.namedScenarios[name] else {
            return .error(404, "No scenario is named \(name).")
        }
        guard let node = JSONNode.parse(lenient: body), let state = node["state"]?.string else {
            return .error(422, "Send {\"state\": \"the state\"}.")
        }
        stubber.setState(state, of: scenario)
        return .json(.object([]))
    }
}
