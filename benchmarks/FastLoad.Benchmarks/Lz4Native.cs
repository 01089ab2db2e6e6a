using System.Runtime.InteropServices;

namespace FastLoad.Benchmarks;

/// <summary>
/// The reference liblz4 block API, called directly: no LZ4 package restores from the served registry, and the
/// machine has liblz4.so.1. Benchmark-only; the library's packs will use their own codec.
/// </summary>
internal static unsafe partial class Lz4Native
{
    private const string Library = "liblz4.so.1";

    public static int MaximumOutputSize(int inputSize) => CompressBound(inputSize);

    /// <summary>Compresses one independent block; returns the compressed length.</summary>
    public static int Encode(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        fixed (byte* from = source)
        fixed (byte* to = destination)
        {
            int written = CompressDefault(from, to, source.Length, destination.Length);
            return written > 0 ? written : throw new InvalidOperationException($"LZ4_compress_default failed ({written}).");
        }
    }

    /// <summary>Decodes one block that must fill <paramref name="destination"/> exactly.</summary>
    public static void Decode(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        fixed (byte* from = source)
        fixed (byte* to = destination)
        {
            int written = DecompressSafe(from, to, source.Length, destination.Length);
            if (written != destination.Length)
            {
                throw new InvalidDataException($"LZ4 block decoded to {written} bytes, expected {destination.Length}.");
            }
        }
    }

    [LibraryImport(Library, EntryPoint = "LZ4_compressBound")]
    private static partial int CompressBound(int inputSize);

    [LibraryImport(Library, EntryPoint = "LZ4_compress_default")]
    private static partial int CompressDefault(byte* source, byte* destination, int sourceSize, int destinationCapacity);

    [LibraryImport(Library, EntryPoint = "LZ4_decompress_safe")]
    private static partial int DecompressSafe(byte* source, byte* destination, int compressedSize, int destinationCapacity);
}
