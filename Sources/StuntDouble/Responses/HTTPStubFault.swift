import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A way a broken server fails a request instead of answering it: WireMock's fault names.
///
/// ```swift
/// stub.stub(for: .get) { $0.fault = .connectionResetByPeer }
/// ```
///
/// A stub server (StuntDoubleServer) breaks the connection as a real server would: it resets it, closes it
/// without a word, sends a broken chunked body, or sends garbage. In process, where there is no connection
/// to break, the request fails with the error URLSession reports for that fault from a real server
/// (``urlError``).
public struct HTTPStubFault: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The fault's name, as WireMock writes it (`CONNECTION_RESET_BY_PEER`).
    public let rawValue: String

    /// Creates a fault from its name. Only the names of the static members are faults a server can play; a
    /// response with another name fails with ``HTTPStubberError/Code/invalidResponse``.
    /// - Parameter rawValue: The name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The name.
    public var description: String { rawValue }

    /// The connection is reset (a TCP RST) before any response.
    public static let connectionResetByPeer = HTTPStubFault(rawValue: "CONNECTION_RESET_BY_PEER")
    /// The connection is closed before any response.
    public static let emptyResponse = HTTPStubFault(rawValue: "EMPTY_RESPONSE")
    /// A `200 OK` head announcing a chunked body, then bytes that are no chunk, then the connection closes.
    public static let malformedResponseChunk = HTTPStubFault(rawValue: "MALFORMED_RESPONSE_CHUNK")
    /// Random bytes instead of a response, then the connection closes.
    public static let randomDataThenClose = HTTPStubFault(rawValue: "RANDOM_DATA_THEN_CLOSE")

    /// Every fault a server can play.
    public static let allCases: [HTTPStubFault] = [
        .connectionResetByPeer, .emptyResponse, .malformedResponseChunk, .randomDataThenClose,
    ]

    /// What the fault does, in a few words.
    var summary: String {
        switch self {
        case .connectionResetByPeer: "reset the connection"
        case .emptyResponse: "close it without a response"
        case .malformedResponseChunk: "send a broken chunked body and close it"
        case .randomDataThenClose: "send random bytes and close it"
        default: "unknown"
        }
    }

    /// The error URLSession on Linux (FoundationNetworking, on libcurl) reports when a server commits this
    /// fault, measured against the stub server: `networkConnectionLost` (-1005, "Connection reset by peer"),
    /// `badServerResponse` (-1011, "Empty reply from server"), `unknown` (-1, "Illegal or missing hexadecimal
    /// sequence in chunked-encoding") and `unsupportedURL` (-1002, "Received HTTP/0.9 when not allowed").
    /// In-process delivery fails with it.
    public var urlError: URLError.Code {
        switch self {
        case .connectionResetByPeer: .networkConnectionLost
        case .emptyResponse: .badServerResponse
        case .malformedResponseChunk: .unknown
        case .randomDataThenClose: .unsupportedURL
        default: .unknown
        }
    }
}
