/// What a reader says of an input once it is read: its size and encoding.
package struct InputEnd: Sendable {
    package var compressedBytes: UInt64
    package var decodedBytes: UInt64
    package var encoding: LogFileReader.Encoding

    package init(_ reader: LogFileReader) {
        compressedBytes = reader.compressedBytes
        decodedBytes = reader.decodedBytes
        encoding = reader.encoding
    }
}
