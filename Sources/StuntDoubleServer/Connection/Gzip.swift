internal import CStuntDoubleZlib
import NIOCore
import NIOHTTP1

/// gzip, with the zlib every platform has: the answers WireMock gzips, and the gzipped request bodies it reads as
/// their plain text.
enum Gzip {
    /// Whether a request takes a gzipped answer, as Jetty's GzipHandler decides for WireMock: its method is one
    /// WireMock gzips (GET, POST, PUT, PATCH, DELETE; not HEAD), and its `Accept-Encoding` names `gzip` with a
    /// weight above 0.
    static func accepts(_ head: HTTPRequestHead) -> Bool {
        switch head.method {
        case .GET, .POST, .PUT, .PATCH, .DELETE: break
        default: return false
        }
        for coding in head.headers[canonicalForm: "accept-encoding"] {
            let parts = coding.split(separator: ";")
            guard let name = parts.first, HeadFacts.name(name.trimmingCharacters(in: .whitespaces), is: "gzip")
            else { continue }
            let weight = parts.dropFirst().lazy.map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) }
            if weight.map({ $0 > 0 }) ?? true { return true }
        }
        return false
    }

    /// A request's body as stubs match it: inflated when it is gzipped (`Content-Encoding: gzip`, or gzip's first
    /// bytes, as WireMock reads a body) and inflates to at most `limit` bytes; else as it came.
    static func inflated(_ head: HTTPRequestHead, body: ByteBuffer, limit: Int) -> ByteBuffer {
        guard body.readableBytes > 0,
            isGzipped(body)
                || head.headers[canonicalForm: "content-encoding"].contains(where: { $0.lowercased() == "gzip" })
        else { return body }
        return decompress(body, limit: limit) ?? body
    }

    /// Whether a response of this type is already compressed (images but SVG, audio, video, archives) or a
    /// stream (server-sent events): Jetty's GzipHandler leaves those as they are.
    static func isCompressedType(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type =
            contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        if type.hasPrefix("image/") { return type != "image/svg+xml" }
        if type.hasPrefix("audio/") || type.hasPrefix("video/") { return true }
        return [
            "application/zip", "application/gzip", "application/x-gzip", "application/compress",
            "application/x-compress", "application/x-bzip2", "application/brotli", "application/x-br",
            "application/x-xz", "application/x-rar-compressed", "application/x-7z-compressed", "application/zstd",
            "text/event-stream",
        ].contains(type)
    }

    /// Whether bytes begin as gzip's do (`1f 8b`), as WireMock tells a gzipped body without `Content-Encoding`.
    static func isGzipped(_ bytes: ByteBuffer) -> Bool {
        bytes.readableBytes >= 2 && bytes.getInteger(at: bytes.readerIndex, as: UInt16.self) == 0x1F8B
    }

    /// `bytes` in gzip's format, or `nil` for a body of 4 GiB or more (zlib counts in 32 bits).
    static func compress(_ bytes: ByteBuffer) -> ByteBuffer? {
        guard bytes.readableBytes < Int(UInt32.max) else { return nil }
        var stream = z_stream()
        guard stuntdouble_deflate_init_gzip(&stream, Z_DEFAULT_COMPRESSION) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = ByteBufferAllocator().buffer(capacity: Int(deflateBound(&stream, uLong(bytes.readableBytes))))
        return bytes.withUnsafeReadableBytes { input -> ByteBuffer? in
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(input.count)
            var status = Z_OK
            // Z_FINISH until the end: Z_OK (or Z_BUF_ERROR) asks for more room.
            while status == Z_OK || status == Z_BUF_ERROR {
                status = step(&stream, into: &output) { deflate(&$0, Z_FINISH) }
            }
            return status == Z_STREAM_END ? output : nil
        }
    }

    /// Runs one zlib call with at least 64 KiB of room after `output`'s bytes, keeps what it wrote, and returns its
    /// status.
    private static func step(
        _ stream: inout z_stream, into output: inout ByteBuffer, _ call: (inout z_stream) -> Int32
    ) -> Int32 {
        var status = Z_OK
        output.writeWithUnsafeMutableBytes(minimumWritableBytes: 64 << 10) { space in
            let room = min(space.count, Int(UInt32.max))
            stream.next_out = space.bindMemory(to: Bytef.self).baseAddress
            stream.avail_out = uInt(room)
            status = call(&stream)
            return room - Int(stream.avail_out)
        }
        return status
    }

    /// A gzipped (or zlib) body as its plain bytes, or `nil` when it is not one, or would be larger than `limit`
    /// bytes (a small body can inflate to gigabytes).
    static func decompress(_ bytes: ByteBuffer, limit: Int) -> ByteBuffer? {
        var stream = z_stream()
        guard stuntdouble_inflate_init_gzip(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output = ByteBufferAllocator().buffer(capacity: min(limit, max(bytes.readableBytes * 4, 1024)))
        return bytes.withUnsafeReadableBytes { input -> ByteBuffer? in
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            guard input.count <= Int(UInt32.max) else { return nil }
            stream.avail_in = uInt(input.count)
            while true {
                let status = step(&stream, into: &output) { inflate(&$0, Z_NO_FLUSH) }
                if output.readableBytes > limit { return nil }
                switch status {
                case Z_STREAM_END:
                    // Bytes after the end of the gzip stream: not one gzipped body.
                    return stream.avail_in == 0 ? output : nil
                case Z_OK:
                    continue
                case Z_BUF_ERROR where stream.avail_in > 0:
                    continue
                default:
                    // A truncated or corrupt stream (Z_DATA_ERROR, Z_BUF_ERROR with no input left).
                    return nil
                }
            }
        }
    }
}
