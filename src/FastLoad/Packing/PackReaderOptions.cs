using System.Buffers;
using System.ComponentModel.DataAnnotations;

namespace FastLoad;

/// <summary>Options of a <see cref="PackReader"/>, copied when the pack is opened.</summary>
public sealed class PackReaderOptions
{
    /// <summary>Gets or sets the most bytes <see cref="PackReader.LoadAllAsync"/> holds at once in blocks being read or decoded.</summary>
    /// <value>
    /// The default value is the default <see cref="FileLoaderOptions.MemoryBudget"/>. The minimum is 64 KiB; one block
    /// is always let through, so a block larger than the budget still loads, alone.
    /// </value>
    /// <remarks>Entries handed to you are yours until you dispose them and no longer count against the budget.</remarks>
    [Range(FileLoaderConstants.MinMemoryBudget, long.MaxValue)]
    public long MemoryBudget { get; set; } = FileLoaderConstants.DefaultMemoryBudget;

    /// <summary>Gets or sets whether each entry read is also checked against the hash of its contents, besides each block against the hash of its stored bytes.</summary>
    /// <value>The default value is <see langword="false"/>.</value>
    /// <remarks>
    /// The block hashes catch any byte of the pack that changed since it was written, before it is decoded, and cost a
    /// third of the entry hashes (they cover the compressed bytes). The entry hashes also check the whole chain from the
    /// packed files to the decoded bytes, as <c>fastload verify</c> does. A pack written before block hashes (format
    /// version 1) has only entry hashes, and they are always checked.
    /// </remarks>
    public bool VerifyEntryHashes { get; set; }

    /// <summary>Gets or sets the pool that block and entry buffers are rented from.</summary>
    /// <value>The default value is <see langword="null"/>, meaning <see cref="ArrayPool{T}.Shared"/>.</value>
    public ArrayPool<byte>? BufferPool { get; set; }

    /// <summary>What is wrong with these options, naming the property; <see langword="null"/> when nothing is.</summary>
    /// <remarks>Written out rather than generated from the attribute, as <see cref="FileLoaderOptions"/> checks its own: no options library in a new process.</remarks>
    internal string? Validate() => MemoryBudget < FileLoaderConstants.MinMemoryBudget
        ? $"{nameof(MemoryBudget)} must be at least {FileLoaderConstants.MinMemoryBudget} bytes; it is {MemoryBudget}."
        : null;

    /// <summary>A copy taken when a reader or writer starts, so that later changes to these options do not reach it.</summary>
    internal PackReaderOptions Clone() => (PackReaderOptions)MemberwiseClone();
}
