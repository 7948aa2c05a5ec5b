import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A bound on the work one regular expression may do on one text, so that one stub cannot stall every request:
/// a pattern such as `(a+)+b` backtracks exponentially on a text like `aaaa...a!` (28 `a`s: seconds; 40: hours).
///
/// ICU reports progress every 10,000 steps of its matcher when asked to (`.reportProgress`); a match that takes
/// more than its budget of reports is stopped, and counts as not matching. The budget is about a million steps
/// plus 20 per character of the text (measured here: 10,000 steps take about 0.2 ms, so a URL's budget is
/// spent in about 20 ms), so that a large body may take proportionally longer but no text can take
/// exponentially longer. Counting steps rather than time makes the outcome the same on a fast and on a loaded
/// machine. Whoever evaluated the stub learns of the stop through ``StoppedMatching``: the request then fails
/// with an explanation naming the stub, rather than being answered by another stub as if this one did not match.
package enum RegexBudget {
    /// Steps between two of ICU's progress reports.
    static let stepsPerReport = 10_000

    /// How many progress reports a match on a text of `length` UTF-16 code units may take.
    static func maximumProgressReports(length: Int) -> Int {
        100 + length / 500
    }

    /// Whether an expression matches somewhere in a text (within `range`, all of it by default), or `nil` when
    /// finding out took more than the budget (a pattern that backtracks catastrophically): for checks that must
    /// not hang on what a request sends.
    package static func boundedMatch(_ expression: NSRegularExpression, in text: String, range: NSRange? = nil)
        -> Bool?
    {
        let range = range ?? NSRange(location: 0, length: text.utf16.count)
        let budget = maximumProgressReports(length: range.length)
        var found = false
        var reports = 0
        expression.enumerateMatches(in: text, options: [.reportProgress], range: range) { result, flags, stop in
            if result != nil {
                found = true
                stop.pointee = true
            } else if flags.contains(.progress) {
                reports += 1
                if reports > budget { stop.pointee = true }
            }
        }
        return reports > budget ? nil : found
    }

    /// Whether `expression` matches somewhere in `text` (within `range`, all of it by default), within the
    /// budget. A match that would exceed it is stopped, recorded in ``StoppedMatching`` (naming `pattern`, the
    /// expression as its author wrote it), and answers `false`.
    static func firstMatch(
        _ expression: NSRegularExpression, in text: String, range: NSRange? = nil, pattern: String? = nil
    ) -> Bool {
        if let found = boundedMatch(expression, in: text, range: range) { return found }
        let length = range?.length ?? text.utf16.count
        StoppedMatching.record(
            "its regular expression /\(pattern ?? expression.pattern)/ took more than "
                + "\(maximumProgressReports(length: length) * stepsPerReport) steps on "
                + "\"\(Similarity.excerpt(text, limit: 80))\" (it backtracks catastrophically: a nested "
                + "repetition such as (a+)+ on a text that almost matches)")
        return false
    }
}

/// Matching that was stopped on this thread (see ``RegexBudget``), for the code that evaluated a stub to read
/// right after: a thread's own slot, because the regular expression may sit under several layers of matchers
/// (a JSONPath filter inside a body pattern ...) that answer only `true` or `false`.
enum StoppedMatching {
    private final class Reason {
        let text: String

        init(_ text: String) {
            self.text = text
        }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            #if canImport(Darwin)
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
            #else
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
            #endif
        }
        return key
    }()

    /// Records why matching stopped (the first reason since the last ``take()`` is kept).
    static func record(_ reason: String) {
        guard pthread_getspecific(key) == nil else { return }
        pthread_setspecific(key, Unmanaged.passRetained(Reason(reason) as AnyObject).toOpaque())
    }

    /// Why matching stopped since the last call, if it did; forgets it.
    static func take() -> String? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        pthread_setspecific(key, nil)
        return (Unmanaged<AnyObject>.fromOpaque(pointer).takeRetainedValue() as? Reason)?.text
    }
}
