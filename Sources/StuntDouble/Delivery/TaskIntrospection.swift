import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a URLProtocol needs to know about its task and session that Foundation does not make public.
///
/// On Linux (FoundationNetworking) it is read by reflection from the task's stored properties, each with a
/// safe fallback when the layout changes: `TaskIntrospectionTests` fails first if it does. On Apple platforms
/// nothing is read: Foundation itself accumulates body chunks and handles uploads there.
struct TaskIntrospection {
    /// The task's session, for its cookie storage and policies.
    var session: URLSession?
    /// The serial queue the session runs its tasks' work on; client calls made on it cannot race with the
    /// session's own bookkeeping.
    var workQueue: DispatchQueue?
    /// Whether every body chunk reaches the caller (session-delegate tasks). Completion-handler and async
    /// tasks on Linux keep only the last chunk, so they must receive the body in one piece.
    var receivesChunks: Bool
    /// The body of an upload task, which its request does not carry on Linux.
    var uploadBody: UploadBody

    enum UploadBody {
        /// The task is not an upload task, or its body is in the request.
        case notApplicable
        /// The body.
        case body(Data?)
        /// The body could not be read: why.
        case unreadable(String)
    }

    init(_ task: URLSessionTask?) {
        session = nil
        workQueue = nil
        receivesChunks = false
        uploadBody = .notApplicable
        #if canImport(FoundationNetworking)
        guard let task else { return }
        let fields = Self.fields(of: task)
        let session = fields["session"].flatMap(Self.unwrap) as? URLSession
        self.session = session
        workQueue = fields["workQueue"] as? DispatchQueue
        receivesChunks = session.map { Self.behaviour(of: task, in: $0)?.hasPrefix("callDelegate") ?? false } ?? false
        if task is URLSessionUploadTask {
            uploadBody = Self.uploadBody(fields["knownBody"])
        }
        #else
        receivesChunks = true
        #endif
    }

    #if canImport(FoundationNetworking)
    /// The stored properties of an object, its superclasses' included.
    static func fields(of subject: Any) -> [String: Any] {
        var fields: [String: Any] = [:]
        var mirror: Mirror? = Mirror(reflecting: subject)
        while let current = mirror {
            for case (let label?, let value) in current.children where fields[label] == nil {
                fields[label] = value
            }
            mirror = current.superclassMirror
        }
        return fields
    }

    /// The value inside an optional (or implicitly unwrapped optional), or `nil` for `.none`.
    static func unwrap(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map(\.value)
    }

    /// The name of the task's behaviour in its session (`callDelegate`, `dataCompletionHandler(...)` ...).
    /// Read on the session's work queue (in `startLoading`), where the session itself reads it.
    private static func behaviour(of task: URLSessionTask, in session: URLSession) -> String? {
        guard let registry = fields(of: session)["taskRegistry"],
            let behaviours = fields(of: registry)["behaviours"] as? [Int: Any],
            let behaviour = behaviours[task.taskIdentifier]
        else { return nil }
        return String(describing: behaviour).split(separator: ".").last.map(String.init)
    }

    private static func uploadBody(_ knownBody: Any?) -> UploadBody {
        let why = "StuntDouble reads an upload task's body from FoundationNetworking's private task storage, "
        guard let knownBody else {
            return .unreadable(why + "which this version of Foundation does not have")
        }
        guard let body = unwrap(knownBody) else { return .body(nil) }
        let mirror = Mirror(reflecting: body)
        guard let (label, payload) = mirror.children.first.map({ ($0.label, $0.value) }) else {
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
                return (try? HTTPIncomingRequest.read(stream)).map { .body($0) }
                    ?? .unreadable("the upload's body stream failed")
            }
        default:
            break
        }
        return .unreadable(why + "and found a body of an unknown kind (\(label ?? "?"))")
    }
    #endif
}
