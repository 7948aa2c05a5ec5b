import Foundation
import Logging

/// Logs one line per message to standard output: the time and the message (and metadata, when given). Lines go
/// through ``OutputSink``, so logging never blocks the caller (a server's event loop): when the output is not
/// read fast enough, lines are dropped and counted, and a line says so once the output moves again.
struct LineLogHandler: LogHandler {
    let label: String
    var logLevel = Logger.Level.info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = Self.time() + " " + event.message.description
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        if !merged.isEmpty {
            line += " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        say(line)
    }

    /// The local time as `HH:mm:ss.SSS`.
    private static func time() -> String {
        var now = timeval()
        gettimeofday(&now, nil)
        var seconds = now.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        return String(
            format: "%02d:%02d:%02d.%03d", parts.tm_hour, parts.tm_min, parts.tm_sec, Int(now.tv_usec) / 1000)
    }
}
