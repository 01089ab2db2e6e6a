using System.IO.Hashing;
using System.Runtime.CompilerServices;

namespace FastLoad.Packing;

/// <summary>The content hash of a pack's entries and index: XXH64 with seed 0 (System.IO.Hashing).</summary>
internal static class PackHash
{
    /// <summary>
    /// Returns the XXH64 of <paramref name="data"/>. Optimized at its first call: System.IO.Hashing ships without
    /// precompiled code, and a pack's first load would otherwise hash every entry with unoptimized code.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static ulong Hash(ReadOnlySpan<byte> data) => XxHash64.HashToUInt64(data);

    /// <summary>The XXH64 of bytes given in pieces, as a stream reads an entry.</summary>
    internal sealed class Incremental
    {
        private readonly XxHash64 _hash = new();

        public void Append(ReadOnlySpan<byte> data) => _hash.Append(data);

        public ulong Complete() => _hash.GetCurrentHashAsUInt64();
    }
}
