using System.IO.Hashing;
using System.Runtime.CompilerServices;

namespace FastLoad.Packing;

/// <summary>The content hash of a pack's entries and index: XXH64 with seed 0 (System.IO.Hashing).</summary>
/// <remarks>
/// System.IO.Hashing ships IL only, so under the JIT its code starts unoptimized (tier 0, its helpers not inlined),
/// and a short process such as a pack's first load never gets past that. Each call therefore goes through a method the
/// JIT compiles fully optimized at its first call, with the package's hashing loop inlined into it. The method must
/// stay out of FastLoad.dll's precompiled (ReadyToRun) code, which cannot inline another package's code:
/// <see cref="MethodImplOptions.NoInlining"/> keeps precompiled callers from folding it in (docs/pack-performance.md).
/// </remarks>
internal static class PackHash
{
    /// <summary>Returns the XXH64 (seed 0) of <paramref name="data"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization | MethodImplOptions.NoInlining)]
    public static ulong Hash(ReadOnlySpan<byte> data) => XxHash64.HashToUInt64(data);

    /// <summary>The XXH64 (seed 0) of bytes given in pieces, as a stream reads an entry.</summary>
    internal sealed class Incremental
    {
        private readonly XxHash64 _hash = new();

        /// <summary>Adds the next piece.</summary>
        [MethodImpl(MethodImplOptions.AggressiveOptimization | MethodImplOptions.NoInlining)]
        public void Append(ReadOnlySpan<byte> data) => _hash.Append(data);

        /// <summary>Returns the hash of every piece so far.</summary>
        public ulong Complete() => _hash.GetCurrentHashAsUInt64();
    }
}
