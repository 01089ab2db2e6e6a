// LargeFileStreaming: hash a file of any size in constant memory at the speed of the disk. ReadChunksAsync reads
// ahead in 4 MiB chunks within the loader's memory budget, in order; each chunk's buffer returns to the pool on Dispose.
//
//   dotnet run --project samples/LargeFileStreaming [file | size-in-MiB]
// Without a file, it writes a file of pseudo-random bytes (1 GiB, or the size given) to the temporary folder first (and removes it).

using System.Diagnostics;
using System.Security.Cryptography;
using FastLoad;
using FastLoad.Shared;

string? made = null;
string path = args.Length > 0 && !int.TryParse(args[0], out _)
    ? args[0]
    : made = MakeFile(Path.Combine(Path.GetTempPath(), $"fastload-large-{Environment.ProcessId}.bin"), (args.Length > 0 ? long.Parse(args[0], System.Globalization.CultureInfo.InvariantCulture) : 1024) << 20);
try
{
    if (PageCache.IsEvictionSupported)
    {
        PageCache.Evict(path); // start cold, so the number is the disk's
    }

    var loader = new FileLoader(new FileLoaderOptions { MemoryBudget = 64 * 1024 * 1024 });
    using var sha256 = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
    var watch = Stopwatch.StartNew();
    long bytes = 0;
    await foreach (FileChunk chunk in loader.ReadChunksAsync(path))
    {
        using (chunk)
        {
            sha256.AppendData(chunk.Data.Span);
            bytes += chunk.Length;
        }
    }

    double seconds = watch.Elapsed.TotalSeconds;
    Console.WriteLine($"SHA-256 {Convert.ToHexStringLower(sha256.GetHashAndReset())}  {path}");
    Console.WriteLine($"{bytes:N0} bytes in {seconds:F2} s ({bytes / seconds / 1e6:N0} MB/s, hashing included), 64 MiB budget.");
    Console.WriteLine($"Peak memory of the process: {PeakMemoryMiB()} MiB (the file is {bytes >> 20} MiB).");
}
finally
{
    if (made is not null)
    {
        File.Delete(made);
    }
}

static string MakeFile(string path, long length)
{
    byte[] block = new byte[4 << 20];
    new Random(7).NextBytes(block);
    using var stream = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.None, bufferSize: 0);
    for (long written = 0; written < length; written += block.Length)
    {
        stream.Write(block, 0, (int)Math.Min(block.Length, length - written));
    }

    return path;
}

// VmHWM: the resident set's high-water mark (Linux); elsewhere the runtime's own peak.
static long PeakMemoryMiB()
{
    if (OperatingSystem.IsLinux())
    {
        string? line = File.ReadLines("/proc/self/status").FirstOrDefault(l => l.StartsWith("VmHWM:", StringComparison.Ordinal));
        if (line is not null && long.TryParse(line.Split(' ', StringSplitOptions.RemoveEmptyEntries)[1], out long kib))
        {
            return kib / 1024;
        }
    }

    return Process.GetCurrentProcess().PeakWorkingSet64 >> 20;
}
