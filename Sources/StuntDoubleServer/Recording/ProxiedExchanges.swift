import Foundation
import NIOConcurrencyHelpers
import StuntDouble

/// What upstreams answered to proxied requests, by journal entry: what `POST /__admin/recordings/stop` and
/// `snapshot` make stubs of (WireMock keeps these answers in its journal).
///
/// Bounded, so that a server that proxies for days does not grow: the newest exchanges, at most as many as the
/// journal keeps and at most ``byteLimit`` bytes of bodies in all (the oldest go first); an answer longer than
/// that is never kept.
final class ProxiedExchanges: Sendable {
    /// An upstream's answer.
    struct Exchange: Sendable {
        let status: Int
        let headers: [(name: String, value: String)]
        let body: Data
        /// Whether the upstream was asked for an uncompressed answer (a recording's): otherwise the body is as
        /// the upstream encoded it for the client (`Content-Encoding`).
        let isIdentityEncoded: Bool
        /// When the head and the parts of the body came (an event stream's pace).
        var arrivals: [HTTPRecordedExchange.Arrival] = []
    }

    /// The most body bytes kept in all.
    static let byteLimit = 64 << 20

    private struct State {
        var byEntry: [Int: Exchange] = [:]
        /// Entry numbers, oldest first, from `first` on.
        var order: [Int] = []
        var first = 0
        var bytes = 0
    }

    private let state = NIOLockedValueBox(State())
    /// Body bytes of answers still arriving, held until they end: at most ``byteLimit`` in all, so that many
    /// large downloads proxied at once are not each held whole.
    private let arriving = NIOLockedValueBox(0)

    /// Reserves room for `count` more bytes of an answer still arriving; `false` when there is none (the answer
    /// will not be kept).
    func reserve(_ count: Int) -> Bool {
        arriving.withLockedValue { held in
            guard held + count <= Self.byteLimit else { return false }
            held += count
            return true
        }
    }

    /// Gives back room reserved with ``reserve(_:)``.
    func release(_ count: Int) {
        arriving.withLockedValue { $0 = max(0, $0 - count) }
    }

    /// Keeps an upstream's answer to the request of journal entry `entry`.
    func add(entry: Int, _ exchange: Exchange, capacity: Int) {
        state.withLockedValue { state in
            if let old = state.byEntry.updateValue(exchange, forKey: entry) {
                state.bytes -= old.body.count
            } else {
                state.order.append(entry)
            }
            state.bytes += exchange.body.count
            while state.first < state.order.count,
                state.order.count - state.first > max(capacity, 1) || state.bytes > Self.byteLimit
            {
                let oldest = state.order[state.first]
                state.first += 1
                if let removed = state.byEntry.removeValue(forKey: oldest) { state.bytes -= removed.body.count }
            }
            if state.first > 1024, state.first * 2 > state.order.count {
                state.order.removeFirst(state.first)
                state.first = 0
            }
        }
    }

    /// The upstream's answer to the request of journal entry `entry`, if it was proxied and is still kept.
    func exchange(for entry: Int) -> Exchange? {
        state.withLockedValue { $0.byEntry[entry] }
    }

    /// Forgets every exchange (the journal was cleared).
    func removeAll() {
        state.withLockedValue { $0 = State() }
    }
}
