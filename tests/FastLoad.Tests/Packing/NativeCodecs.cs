using System.Runtime.InteropServices;

namespace FastLoad.Tests.Packing;

/// <summary>
/// The reference C library, liblz4 (block API): pack blocks must be plain LZ4 blocks that any LZ4 implementation reads.
/// Required, not optional: CI installs it (.ci/run), and a machine without it fails these tests saying so.
/// </summary>
internal static unsafe class NativeCodecs
{
    private static readonly Lazy<nint> Lz4 = new(() => NativeLibrary.TryLoad("liblz4.so.1", out nint handle)
        ? handle
        : throw new DllNotFoundException("liblz4.so.1 is not installed (Debian/Ubuntu: apt-get install liblz4-1; .ci/run installs it): the LZ4 cross-checks need the reference library."));

    public static int CompressBound(int length) =>
        ((delegate* unmanaged<int, int>)NativeLibrary.GetExport(Lz4.Value, "LZ4_compressBound"))(length);

    public static int Compress(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        var compress = (delegate* unmanaged<byte*, byte*, int, int, int>)NativeLibrary.GetExport(Lz4.Value, "LZ4_compress_default");
        fixed (byte* src = source)
        fixed (byte* dst = destination)
        {
            return compress(src, dst, source.Length, destination.Length);
        }
    }

    public static int Decompress(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        var decompress = (delegate* unmanaged<byte*, byte*, int, int, int>)NativeLibrary.GetExport(Lz4.Value, "LZ4_decompress_safe");
        fixed (byte* src = source)
        fixed (byte* dst = destination)
        {
            return decompress(src, dst, source.Length, destination.Length);
        }
    }
}

/// <summary>Test data of the kinds a pack holds.</summary>
internal static class TestData
{
    public const string Zeros = "zeros";
    public const string Random = "random";
    public const string Text = "text";
    public const string Mixed = "mixed";
    public const string Repeats = "repeats";

    public static byte[] Create(string kind, int length, int seed = 1)
    {
        byte[] data = new byte[length];
        var random = new Random(seed);
        switch (kind)
        {
            case Zeros:
                break;
            case Random:
                random.NextBytes(data);
                break;
            case Text:
                FillText(random, data);
                break;
            case Repeats:
                FillRepeats(random, data);
                break;
            default:
                // Alternating stretches of text and noise: matches that end and start anywhere.
                FillText(random, data);
                for (int at = 0; at < length; at += 3000)
                {
                    random.NextBytes(data.AsSpan(at, Math.Min(700, length - at)));
                }

                break;
        }

        return data;
    }

    /// <summary>Patterns of 1 to 20 bytes repeated up to 300 bytes, between bits of noise: matches from near behind, of every length.</summary>
    private static void FillRepeats(Random random, Span<byte> data)
    {
        int at = 0;
        while (at < data.Length)
        {
            int period = random.Next(1, 21);
            int end = Math.Min(data.Length, at + random.Next(1, 301));
            random.NextBytes(data.Slice(at, Math.Min(period, end - at)));
            for (int i = at + period; i < end; i++)
            {
                data[i] = data[i - period];
            }

            int noise = Math.Min(data.Length - end, random.Next(0, 41));
            random.NextBytes(data.Slice(end, noise));
            at = end + noise;
        }
    }

    private static void FillText(Random random, Span<byte> data)
    {
        string[] words = ["load", "file", "block", "\"name\": ", "{", "}", "value", "0.5", "true", "\n", "asset", "texture", "index"];
        int at = 0;
        while (at < data.Length)
        {
            string word = words[random.Next(words.Length)];
            for (int i = 0; i < word.Length && at < data.Length; i++)
            {
                data[at++] = (byte)word[i];
            }

            if (at < data.Length)
            {
                data[at++] = (byte)(random.Next(4) == 0 ? ',' : ' ');
            }
        }
    }
}
