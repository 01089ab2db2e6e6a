using System.Diagnostics;
using System.Runtime.InteropServices;

namespace FastLoad.Tests.Packing;

/// <summary>The reference C libraries, when this machine has them: liblz4 (block API) and libxxhash (XXH64).</summary>
internal static unsafe class NativeCodecs
{
    private static readonly Lazy<nint> Lz4 = new(() => NativeLibrary.TryLoad("liblz4.so.1", out nint handle) ? handle : 0);
    private static readonly Lazy<nint> XxHash = new(() => NativeLibrary.TryLoad("libxxhash.so.0", out nint handle) ? handle : 0);

    public static bool HasLz4 => Lz4.Value != 0;

    public static bool HasXxHash => XxHash.Value != 0;

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

    public static ulong XxHash64(ReadOnlySpan<byte> data, ulong seed)
    {
        var hash = (delegate* unmanaged<byte*, nuint, ulong, ulong>)NativeLibrary.GetExport(XxHash.Value, "XXH64");
        fixed (byte* src = data)
        {
            return hash(src, (nuint)data.Length, seed);
        }
    }
}

/// <summary>A fact that needs liblz4.so.1; skipped with that reason where it is missing.</summary>
public sealed class Lz4FactAttribute : FactAttribute
{
    public Lz4FactAttribute()
    {
        if (!NativeCodecs.HasLz4)
        {
            Skip = "liblz4.so.1 is not installed (apt-get install liblz4-1): no reference to compare the codec with.";
        }
    }
}

/// <summary>A theory that needs liblz4.so.1.</summary>
public sealed class Lz4TheoryAttribute : TheoryAttribute
{
    public Lz4TheoryAttribute()
    {
        if (!NativeCodecs.HasLz4)
        {
            Skip = "liblz4.so.1 is not installed (apt-get install liblz4-1): no reference to compare the codec with.";
        }
    }
}

/// <summary>A theory that needs libxxhash.so.0.</summary>
public sealed class XxHashTheoryAttribute : TheoryAttribute
{
    public XxHashTheoryAttribute()
    {
        if (!NativeCodecs.HasXxHash)
        {
            Skip = "libxxhash.so.0 is not installed (apt-get install libxxhash0): no reference to compare XXH64 with.";
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
