import Foundation

/// A simulated download bandwidth, for ``HTTPStubResponseInterval/withSpeed(_:)``.
///
/// The presets are named in kilobits per second (1 kbps = 1,000 bits per second = 125 bytes per second):
///
/// | preset | kbps | bytes per second |
/// |---|---|---|
/// | ``speed1kbps`` | 1 | 125 |
/// | ``speedSlow`` | 12 | 1,500 |
/// | ``speedGPRS`` | 56 | 7,000 |
/// | ``speedEdge`` | 128 | 16,000 |
/// | ``speed3G`` | 3,200 | 400,000 |
/// | ``speed3GPlus`` | 7,200 | 900,000 |
/// | ``speedWiFi`` | 12,000 | 1,500,000 |
///
/// The HTTPStubber documentation this API comes from lists 3G+ as "200 kbps (900 KB/s)": the two numbers
/// disagree, and 200 kbps would be slower than 3G. StuntDouble follows the KB/s figure, 7,200 kbps, as every
/// other row's kbps and KB/s agree (kbps / 8 = KB/s).
public struct HTTPConnectionSpeed: Hashable, Sendable, CustomStringConvertible {
    /// The bandwidth in bytes per second.
    public let bytesPerSecond: Double

    /// Creates a speed in bytes per second.
    /// - Parameter bytesPerSecond: The bandwidth; it must be positive and finite, or the stubbed response
    ///   fails with ``HTTPStubberError/Code/invalidResponse``.
    public init(bytesPerSecond: Double) {
        self.bytesPerSecond = bytesPerSecond
    }

    /// A speed in kilobits per second (1,000 bits).
    /// - Parameter kilobits: The bandwidth in kbps.
    /// - Returns: The speed.
    public static func kilobitsPerSecond(_ kilobits: Double) -> HTTPConnectionSpeed {
        HTTPConnectionSpeed(bytesPerSecond: kilobits * 125)
    }

    /// The speed in kilobits per second.
    public var kilobitsPerSecond: Double { bytesPerSecond / 125 }

    /// A description such as `3200 kbps (400000 bytes/s)`.
    public var description: String {
        func shown(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
        return "\(shown(kilobitsPerSecond)) kbps (\(shown(bytesPerSecond)) bytes/s)"
    }

    /// 1 kbps: 125 bytes per second.
    public static let speed1kbps = kilobitsPerSecond(1)
    /// 12 kbps: 1,500 bytes per second.
    public static let speedSlow = kilobitsPerSecond(12)
    /// GPRS, 56 kbps: 7,000 bytes per second.
    public static let speedGPRS = kilobitsPerSecond(56)
    /// EDGE, 128 kbps: 16,000 bytes per second.
    public static let speedEdge = kilobitsPerSecond(128)
    /// 3G, 3,200 kbps: 400,000 bytes per second.
    public static let speed3G = kilobitsPerSecond(3200)
    /// 3G+, 7,200 kbps: 900,000 bytes per second.
    public static let speed3GPlus = kilobitsPerSecond(7200)
    /// Wi-Fi, 12,000 kbps: 1,500,000 bytes per second.
    public static let speedWiFi = kilobitsPerSecond(12000)
}
