import Foundation
import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension AsyncURLSessionProtocol {
    /// The body of a GET, as text.
    func text(from url: String) async throws -> String {
        String(decoding: try await data(from: URL(string: url)!).0, as: UTF8.self)
    }
}
