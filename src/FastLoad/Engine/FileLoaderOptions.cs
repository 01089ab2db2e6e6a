using System.Buffers;
using System.ComponentModel.DataAnnotations;

namespace FastLoad;

/// <summary>Options of a <c>FileLoader</c>. The loader copies them when it is created.</summary>
public sealed class FileLoaderOptions
{
    /// <summary>Gets or sets how many files are read at once, or <see langword="null"/> to choose from the files and the machine.</summary>
    /// <value>The default value is <see langword="null"/> (automatic). A value pins the parallelism, from 1 to 1024.</value>
    [Range(1, FileLoaderConstants.MaxDegreeOfParallelism)]
    public int? MaxDegreeOfParallelism { get; set; }

    /// <summary>Gets or sets the most bytes the loader holds at once: files being read, or read and not yet handed over.</summary>
    /// <value>
    /// The default value is 1/16 of the memory available to the process, between 32 MiB and 512 MiB. The minimum is 64 KiB.
    /// A file larger than the budget is still loaded, alone.
    /// </value>
    /// <remarks>
    /// A file counts as the buffer it is read into: its length rounded up to a buffer size class, at most a quarter
    /// more (files of more than 16 MiB: at most 1/16 more, in multiples of 2 MiB); with a <see cref="BufferPool"/>, its
    /// length. A file that reports no length (a pseudo file) counts as its buffer grows, and one that grows past the
    /// whole budget fails. A file handed to you is yours until you dispose it and no longer counts against the budget.
    /// With <see cref="LoadOrdering.Input"/>, the file delivery waits for is read even when the budget is taken by
    /// files after it, so the loader may hold that one file beyond the budget.
    /// </remarks>
    [Range(FileLoaderConstants.MinMemoryBudget, long.MaxValue)]
    public long MemoryBudget { get; set; } = FileLoaderConstants.DefaultMemoryBudget;

    /// <summary>Gets or sets the order in which files are delivered.</summary>
    /// <value>The default value is <see cref="LoadOrdering.Completion"/>.</value>
    [EnumDataType(typeof(LoadOrdering))]
    public LoadOrdering Ordering { get; set; } = LoadOrdering.Completion;

    /// <summary>Gets or sets what happens when a file cannot be read.</summary>
    /// <value>The default value is <see cref="LoadErrorHandling.Throw"/>.</value>
    [EnumDataType(typeof(LoadErrorHandling))]
    public LoadErrorHandling ErrorHandling { get; set; } = LoadErrorHandling.Throw;

    /// <summary>Gets or sets where the reads run: submitted to the kernel's io_uring, or blocking on threads.</summary>
    /// <value>
    /// The default value is <see cref="IoScheduling.IoUring"/>: on Linux the fastest measured from the first load on
    /// (docs/startup.md); where the kernel offers no io_uring, and on other systems, the same as
    /// <see cref="IoScheduling.DedicatedThreads"/>.
    /// </value>
    [EnumDataType(typeof(IoScheduling))]
    public IoScheduling Scheduling { get; set; } = IoScheduling.IoUring;

    /// <summary>Gets or sets how many calls of a consumer callback may run at once.</summary>
    /// <value>The default value is 1: the consumer sees one file at a time, while the next files are being read. At most 256.</value>
    [Range(1, FileLoaderConstants.MaxConsumerParallelism)]
    public int ConsumerParallelism { get; set; } = 1;

    /// <summary>Gets or sets a value indicating whether the parallelism is corrected from measured throughput while a load runs.</summary>
    /// <value>The default value is <see langword="true"/>. Ignored when <see cref="MaxDegreeOfParallelism"/> pins the parallelism.</value>
    public bool Adaptive { get; set; } = true;

    /// <summary>Gets or sets the kind of storage to assume, or <see langword="null"/> to detect it per device.</summary>
    /// <value>The default value is <see langword="null"/> (detect). Detection is a prior only; see <see cref="StorageProbe"/>.</value>
    [EnumDataType(typeof(StorageKind))]
    public StorageKind? Storage { get; set; }

    /// <summary>Gets or sets whether files are read in the order of their location on the device.</summary>
    /// <value>The default value is <see cref="FastLoad.PhysicalOrder.Auto"/>: on for rotational devices with <see cref="LoadOrdering.Completion"/>.</value>
    [EnumDataType(typeof(PhysicalOrder))]
    public PhysicalOrder PhysicalOrder { get; set; } = PhysicalOrder.Auto;

    /// <summary>Gets or sets whether large files (16 MiB and more) are read through the page cache.</summary>
    /// <value>The default value is <see cref="FileBuffering.Auto"/>: unbuffered from 1 GiB, buffered below.</value>
    [EnumDataType(typeof(FileBuffering))]
    public FileBuffering Buffering { get; set; } = FileBuffering.Auto;

    /// <summary>Gets or sets a value indicating whether large files (16 MiB and more) are memory-mapped instead of read.</summary>
    /// <value>The default value is <see langword="false"/>.</value>
    /// <remarks>
    /// A mapped file costs no copy, and its pages are read from the device only when first touched, so the load
    /// itself does no I/O for them. The hazard: if another process truncates the file while it is mapped, touching
    /// the lost pages kills this process (SIGBUS). Use it only for files nothing else writes.
    /// </remarks>
    public bool UseMemoryMapping { get; set; }

    /// <summary>What is wrong with these options, naming each property; <see langword="null"/> when nothing is.</summary>
    /// <remarks>
    /// Written out rather than generated from the attributes, so that a loader checks its options without reflection or
    /// the options library in a new process; a test keeps it in step with the attributes.
    /// </remarks>
    internal string? Validate()
    {
        FileLoaderOptions options = this;
        string? failures = null;
        if (options.MaxDegreeOfParallelism is int parallelism && parallelism is < 1 or > FileLoaderConstants.MaxDegreeOfParallelism)
        {
            Add(ref failures, $"{nameof(FileLoaderOptions.MaxDegreeOfParallelism)} must be between 1 and "
                + $"{FileLoaderConstants.MaxDegreeOfParallelism}; it is {parallelism}.");
        }

        if (options.MemoryBudget < FileLoaderConstants.MinMemoryBudget)
        {
            Add(ref failures, $"{nameof(FileLoaderOptions.MemoryBudget)} must be at least {FileLoaderConstants.MinMemoryBudget} bytes; "
                + $"it is {options.MemoryBudget}.");
        }

        if (options.ConsumerParallelism is < 1 or > FileLoaderConstants.MaxConsumerParallelism)
        {
            Add(ref failures, $"{nameof(FileLoaderOptions.ConsumerParallelism)} must be between 1 and "
                + $"{FileLoaderConstants.MaxConsumerParallelism}; it is {options.ConsumerParallelism}.");
        }

        // Range checks rather than Enum.IsDefined: each enum type would compile a generic method at run time.
        CheckEnum(ref failures, nameof(FileLoaderOptions.Ordering), (int)options.Ordering, (int)LoadOrdering.Input);
        CheckEnum(ref failures, nameof(FileLoaderOptions.ErrorHandling), (int)options.ErrorHandling, (int)LoadErrorHandling.Collect);
        CheckEnum(ref failures, nameof(FileLoaderOptions.Scheduling), (int)options.Scheduling, (int)IoScheduling.ThreadPool);
        CheckEnum(ref failures, nameof(FileLoaderOptions.PhysicalOrder), (int)options.PhysicalOrder, (int)PhysicalOrder.Off);
        CheckEnum(ref failures, nameof(FileLoaderOptions.Buffering), (int)options.Buffering, (int)FileBuffering.Unbuffered);
        if (options.Storage is StorageKind storage)
        {
            CheckEnum(ref failures, nameof(FileLoaderOptions.Storage), (int)storage, (int)StorageKind.Memory);
        }

        if (options.PhysicalOrder == PhysicalOrder.On && options.Ordering == LoadOrdering.Input)
        {
            Add(ref failures, "PhysicalOrder.On needs Ordering = LoadOrdering.Completion: reading in physical order and delivering in "
                + "input order would hold every file read ahead of its turn.");
        }

        return failures;
    }

    private static void CheckEnum(ref string? failures, string property, int value, int last)
    {
        if (value < 0 || value > last)
        {
            Add(ref failures, $"{property} has no value {value}.");
        }
    }

    private static void Add(ref string? failures, string failure) => failures = failures is null ? failure : $"{failures} {failure}";

    /// <summary>A copy, so that an engine is not changed by later changes to the options it was built with (shallow: the pool is shared).</summary>
    internal FileLoaderOptions Clone() => (FileLoaderOptions)MemberwiseClone();

    /// <summary>Gets or sets the pool the file buffers are rented from.</summary>
    /// <value>
    /// The default value is <see langword="null"/>: FastLoad's own native memory, in size classes at most a quarter larger
    /// than each file (files of more than 16 MiB: at most 1/16), reused by later files and loads and given back to the
    /// system once the process has loaded nothing for a few seconds, so that loading many large files does not leave
    /// memory parked in a pool. The budget then counts each buffer's size class.
    /// </value>
    public ArrayPool<byte>? BufferPool { get; set; }
}
