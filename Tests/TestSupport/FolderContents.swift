import Foundation

/// Every file under a folder (in sub-folders too), by path relative to it, with its contents.
/// - Parameter root: The folder.
/// - Returns: The files; empty when the folder does not exist.
public func filesUnder(_ root: URL) -> [String: Data] {
    var files: [String: Data] = [:]
    let enumerator = FileManager.default.enumerator(atPath: root.path)
    while let path = enumerator?.nextObject() as? String {
        var isDirectory: ObjCBool = false
        let url = root.appendingPathComponent(path)
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            files[path] = FileManager.default.contents(atPath: url.path)
        }
    }
    return files
}
