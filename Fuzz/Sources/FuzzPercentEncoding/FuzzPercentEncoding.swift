// Input: any text.

import FuzzSupport

@testable import StuntDouble

/// libFuzzer's entry point: checks one input; a violated property aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = FuzzInput(data, size).parts(1)[0]
    for allowReserved in [false, true] {
        let encoded = PercentEncoding.encode(text, allowReserved: allowReserved)
        // Reserved expansion (RFC 6570 `{+var}`) keeps percent-encoded triplets as they are.
        let meaning = allowReserved ? PercentEncoding.decode(text) : text
        require(PercentEncoding.decode(encoded) == meaning, "decode(encode(\(text.debugDescription))) differs")
        require(encoded.utf8.allSatisfy { $0 < 0x80 }, "encoding left a non-ASCII byte")
    }
    let normalized = PercentEncoding.normalize(text)
    require(PercentEncoding.normalize(normalized) == normalized, "normalize is not idempotent")
    require(PercentEncoding.decode(normalized) == PercentEncoding.decode(text), "normalize changed the meaning")
    return 0
}
