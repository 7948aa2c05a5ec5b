import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a URLProtocol needs to know about its task and session that Foundation does not make public.
///
/// On Linux (FoundationNetworking) it is read by reflection from the task's stored properties, each with a
/// safe fallback when the layout changes (`TaskIntrospectionTests` fails first if it does). Reflection costs
/// tens of microseconds, so each fact is read only when a response needs it, and once: an immediate response
/// with no cookies reads nothing. On Apple platforms nothing is read: Foundation itself accumulates body chunks
/// and handles uploads there.
///
/// Not thread-safe: its owner (a ``ResponsePlayer``) uses it under its lock, on the task's work queue when
/// it can.
final class TaskIntrospection {
    private let task: URLSessionTask?

    init(_ task: URLSessionTask?) {
        self.task = task
    }

    /// The task's session, for its cookie storage and policies.
    lazy var session: URLSession? = {
        #if canImport(FoundationNetworking)
        guard let task, let value = Self.field("session", of: task) else { return nil }
        return Self.unwrap(value) as? URLSession
        #else
        return nil
        #endif
    }()

    /// The serial queue the session runs its tasks' work on: client calls made on it cannot race with the
    /// session's own bookkeeping.
    lazy var workQueue: DispatchQueue? = {
        guard let task else { return nil }
        return Self.workQueue(of: task)
    }()

    /// The serial queue a task's work runs on (see ``workQueue``), read on every immediate answer: so it is
    /// read by position, which is found once (the position of a stored property is fixed for the process),
    /// and each read checks the label there before trusting it.
    static func workQueue(of task: URLSessionTask) -> DispatchQueue? {
        #if canImport(FoundationNetworking)
        var found: Mirror? = Mirror(reflecting: task)
        while let mirror = found, mirror.subjectType != URLSessionTask.self {
            found = mirror.superclassMirror
        }
        guard let mirror = found else { return nil }
        let children = mirror.children
        if let position = workQueuePosition.current, position < children.count {
            let child = children[children.index(children.startIndex, offsetBy: position)]
            if child.label == "workQueue" { return child.value as? DispatchQueue }
        }
        guard let (position, child) = children.enumerated().first(where: { $0.element.label == "workQueue" }) else {
            return nil
        }
        workQueuePosition.withLock { $0 = position }
        return child.value as? DispatchQueue
        #else
        return nil
        #endif
    }

    /// Where `workQueue` is among `URLSessionTask`'s stored properties, once found.
    private static let workQueuePosition = Locked<Int?>(nil)

    /// Whether every body chunk reaches the caller (session-delegate tasks). Completion-handler and async tasks
    /// on Linux keep only the last chunk, so they must receive a body in one piece. Read it on the work queue.
    lazy var receivesChunks: Bool = {
        #if canImport(FoundationNetworking)
        guard let task, let session, let registry = Self.field("taskRegistry", of: session),
            let behaviours = Self.field("behaviours", of: registry) as? [Int: Any],
            let behaviour = behaviours[task.taskIdentifier]
        else { return false }
        return String(describing: behaviour).split(separator: ".").last?.hasPrefix("callDelegate") ?? false
        #else
        return true
        #endif
    }()

    enum UploadBody {
        /// The task is not an upload task.
        case notApplicable
        /// The body.
        case body(Data?)
        /// A streamed upload (`uploadTask(withStreamedRequest:)`): the body comes from the task's delegate.
        case streamed
        /// The body could not be read: why.
        case unreadable(String)
    }

    /// The body of an upload task, which its request does not carry on Linux.
    func uploadBody() -> UploadBody {
        #if canImport(FoundationNetworking)
        guard let task = task as? URLSessionUploadTask else { return .notApplicable }
        let why = "StuntDouble reads an upload task's body from FoundationNetworking's private task storage, "
        guard let knownBody = Self.field("knownBody", of: task) else {
            return .unreadable(why + "which this version of Foundation does not have")
        }
        // Every upload task has a known body but a streamed one, whose body its delegate gives.
        guard let body = Self.unwrap(knownBody) else { return .streamed }
        guard let (label, payload) = Mirror(reflecting: body).children.first.map({ ($0.label, $0.value) }) else {
            return .body(nil)  // `.none`
        }
        switch label {
        case "data":
            if let data = payload as? DispatchData {
                return .body(Data(data))
            }
        case "file":
            if let url = payload as? URL {
                do {
                    return .body(try Data(contentsOf: url))
                } catch {
                    return .unreadable("the upload's file \(url.path) could not be read: \(error)")
                }
            }
        case "stream":
            if let stream = payload as? InputStream {
                do {
                    return .body(try HTTPIncomingRequest.read(stream))
                } catch {
                    return .unreadable("the upload's body stream failed: \(error.reason)")
                }
            }
        default:
            break
        }
        return .unreadable(why + "and found a body of an unknown kind (\(label ?? "?"))")
        #else
        return .notApplicable
        #endif
    }

    #if canImport(FoundationNetworking)
    /// The delegate of a task (its own, else its session's), which FoundationNetworking's own HTTP protocol
    /// asks for a streamed upload's body, tells of upload progress and asks about redirects, but a custom
    /// protocol's tasks never hear from. StuntDouble makes the same calls, on the session's delegate queue, so
    /// that they arrive in order with the calls Foundation makes for the response.
    struct TaskDelegate: @unchecked Sendable {
        let session: URLSession
        let task: URLSessionTask
        let delegate: any URLSessionTaskDelegate

        /// Asks for the body stream of a streamed upload (`urlSession(_:task:needNewBodyStream:)`).
        func bodyStream(_ completion: @escaping @Sendable (BodyStream?) -> Void) {
            let link = self
            session.delegateQueue.addOperation {
                link.delegate.urlSession(link.session, task: link.task) { stream in
                    completion(stream.map(BodyStream.init))
                }
            }
        }

        /// Tells of an upload's body as sent (`didSendBodyData`), in one piece; nothing for an empty body.
        func didSendBody(count: Int) {
            guard count > 0 else { return }
            let link = self
            let count = Int64(count)
            session.delegateQueue.addOperation {
                link.delegate.urlSession(
                    link.session, task: link.task, didSendBodyData: count, totalBytesSent: count,
                    totalBytesExpectedToSend: count)
            }
        }

        /// Asks whether to follow a redirect (`willPerformHTTPRedirection`): the request to follow, possibly
        /// changed, or `nil` to receive the redirect's response as the final one.
        func willRedirect(
            _ response: HTTPURLResponse, to request: URLRequest,
            _ completion: @escaping @Sendable (URLRequest?) -> Void
        ) {
            let link = self
            let call = RedirectCall(response: response, request: request)
            session.delegateQueue.addOperation {
                link.delegate.urlSession(
                    link.session, task: link.task, willPerformHTTPRedirection: call.response,
                    newRequest: call.request, completionHandler: { completion($0) })
            }
        }
    }

    /// Hands an `InputStream` from the delegate to the reader; the reader alone uses it afterwards.
    struct BodyStream: @unchecked Sendable {
        let stream: InputStream
    }

    /// Foundation's values for a redirect call, handed to the delegate queue once.
    private struct RedirectCall: @unchecked Sendable {
        let response: HTTPURLResponse
        let request: URLRequest
    }

    /// The task's delegate (its own, else its session's); `nil` without one.
    lazy var delegate: TaskDelegate? = {
        guard let task, let session,
            let delegate = (task.delegate ?? session.delegate) as? any URLSessionTaskDelegate
        else { return nil }
        return TaskDelegate(session: session, task: task, delegate: delegate)
    }()

    #else
    /// Apple platforms: Foundation itself asks a task's delegate for a streamed upload's body, tells it of upload
    /// progress and asks it about redirects (`URLSessionTaskDelegate`'s methods are optional there, and a custom
    /// protocol's task reaches them through Foundation), so no task has a delegate of StuntDouble's to call.
    struct TaskDelegate: Sendable {
        /// Never called: there is no delegate (see ``TaskIntrospection/delegate``).
        func didSendBody(count: Int) {}

        /// Never called: there is no delegate; follows the redirect as it is.
        func willRedirect(
            _ response: HTTPURLResponse, to request: URLRequest,
            _ completion: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completion(request)
        }
    }

    /// Always `nil` on Apple platforms (see ``TaskDelegate``).
    var delegate: TaskDelegate? { nil }
    #endif

    #if canImport(FoundationNetworking)
    /// A stored property of an object, looked up by name in its class and superclasses; stops at the first
    /// match, since reading a field decodes its type.
    static func field(_ name: String, of subject: Any) -> Any? {
        var mirror: Mirror? = Mirror(reflecting: subject)
        while let current = mirror {
            if let child = current.children.first(where: { $0.label == name }) {
                return child.value
            }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// The value inside an optional (or implicitly unwrapped optional), or `nil` for `.none`.
    static func unwrap(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map(\.value)
    }
    #endif
}
