import Foundation
import NIOConcurrencyHelpers

/// The state of the admin API's recording (`/__admin/recordings/...`): never started, recording through a
/// proxying mapping since a moment, or stopped.
final class Recorder: Sendable {
    enum Status: Sendable {
        case neverStarted
        case recording(Session)
        case stopped
    }

    /// A recording in progress.
    struct Session: Sendable {
        /// The catch-all mapping that proxies to the target while recording.
        let proxyMappingID: UUID
        /// The journal's last entry when the recording started (0 for none): the recording's come after it.
        let lastEntryBefore: Int
        let spec: RecordSpec
    }

    private let state = NIOLockedValueBox(Status.neverStarted)

    var status: Status { state.withLockedValue { $0 } }

    /// Whether a proxying mapping is the recording's (whose answers are recorded uncompressed).
    func isRecording(through mappingID: UUID?) -> Bool {
        guard let mappingID else { return false }
        return state.withLockedValue { status in
            if case .recording(let session) = status { session.proxyMappingID == mappingID } else { false }
        }
    }

    /// Starts a recording, unless one is in progress (then nothing changes, as in WireMock).
    /// - Returns: Whether it started.
    func start(_ session: Session) -> Bool {
        state.withLockedValue { status in
            if case .recording = status { return false }
            status = .recording(session)
            return true
        }
    }

    /// Stops the recording in progress.
    /// - Returns: It, or `nil` when none was.
    func stop() -> Session? {
        state.withLockedValue { status in
            guard case .recording(let session) = status else { return nil }
            status = .stopped
            return session
        }
    }
}
