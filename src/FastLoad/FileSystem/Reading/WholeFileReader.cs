using System.Buffers;
using System.Diagnostics;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

/// <summary>Reads one whole file into one pooled buffer: the strategy for the common, small-to-medium file.</summary>
internal static class WholeFileReader
{
    // Pseudo files (/proc, /sys) report a length of 0 and still have content: they are read to the end in steps.
    private const int UnknownLengthStep = 4096;

    // Bounds one pread so that cancellation is seen between steps of a large file.
    private const int MaxReadSize = 8 * 1024 * 1024;

    // Set once a C library without preadv2 was found: nothing asks the page cache alone then.
    private static bool s_noPReadV2;

    /// <summary>
    /// Reads the file as it is when opened: its length then sizes the buffer, reads loop until it is full, and a
    /// file that shrank meanwhile yields only the bytes it still has. The caller owns the returned contents.
    /// </summary>
    /// <param name="handle">The open file.</param>
    /// <param name="path">Its path, for errors.</param>
    /// <param name="openLength">Its length when opened; 0 for a file of unknown length, read to its end.</param>
    /// <param name="pool">Where the buffer comes from.</param>
    /// <param name="grow">
    /// For a file of unknown length: called with the bytes each larger buffer adds before it is taken (the first
    /// one's too), so that what it holds is accounted for; it throws to stop the read.
    /// </param>
    /// <param name="cancellationToken">Stops the read between steps.</param>
    public static PooledContents Read(
        SafeFileHandle handle, string path, long openLength, ArrayPool<byte> pool, Action<long>? grow, CancellationToken cancellationToken)
    {
        Debug.Assert(openLength < ReadSettings.LargeFileThreshold, "Large files take the chunked path; this one fits one array.");

        grow?.Invoke(openLength == 0 ? UnknownLengthStep : 0);
        byte[] buffer = pool.Rent(openLength == 0 ? UnknownLengthStep : (int)openLength);
        try
        {
            int length = openLength == 0
                ? ReadToEnd(handle, path, pool, grow, ref buffer, cancellationToken)
                : ReadUpTo(handle, path, buffer, (int)openLength, cancellationToken);
            return new PooledContents(buffer, length, pool);
        }
        catch
        {
            pool.Return(buffer);
            throw;
        }
    }

    internal static IOException FileTooLarge(string path, long length) =>
        new($"'{path}' is {length:N0} bytes; one buffer holds at most {Array.MaxLength:N0} bytes, so it cannot be loaded whole.");

    private static int ReadUpTo(SafeFileHandle handle, string path, byte[] buffer, int count, CancellationToken cancellationToken)
    {
        int total = 0;
        while (total < count)
        {
            cancellationToken.ThrowIfCancellationRequested();
            int read = ReadAt(handle, path, buffer.AsSpan(total, Math.Min(count - total, MaxReadSize)), total);
            if (read == 0)
            {
                break; // The file shrank after it was opened: what it still has is all there is.
            }

            total += read;
        }

        return total;
    }

    private static int ReadToEnd(SafeFileHandle handle, string path, ArrayPool<byte> pool, Action<long>? grow, ref byte[] buffer, CancellationToken cancellationToken)
    {
        int total = 0;
        while (true)
        {
            if (total == buffer.Length)
            {
                if (buffer.Length >= Array.MaxLength)
                {
                    throw FileTooLarge(path, total);
                }

                int size = (int)Math.Min(2L * buffer.Length, Array.MaxLength);
                grow?.Invoke(size - buffer.Length);
                byte[] larger = pool.Rent(size);
                buffer.AsSpan(0, total).CopyTo(larger);
                pool.Return(buffer);
                buffer = larger;
            }

            cancellationToken.ThrowIfCancellationRequested();
            int read = ReadAt(handle, path, buffer.AsSpan(total, Math.Min(buffer.Length - total, MaxReadSize)), total);
            if (read == 0)
            {
                return total;
            }

            total += read;
        }
    }

    /// <summary>
    /// Reads <paramref name="destination"/>'s length from the file's start, as far as the page cache holds its bytes
    /// (Linux: <c>preadv2</c> with <c>RWF_NOWAIT</c>): <see langword="false"/> where a byte would wait for the device, the
    /// file is shorter, or the kernel cannot say; the caller then reads the rest, from <paramref name="read"/> on, the
    /// usual way.
    /// </summary>
    internal static unsafe bool TryReadCached(SafeFileHandle handle, Span<byte> destination, out int read)
    {
        read = 0;
        if (!OperatingSystem.IsLinux() || s_noPReadV2)
        {
            return false;
        }

        fixed (byte* buffer = destination)
        {
            var vector = new Interop.IoVector { Base = buffer, Length = (nuint)destination.Length };
            nint result;
            try
            {
                do
                {
                    result = Interop.PReadV2(handle, &vector, 1, 0, Interop.ReadNoWait);
                }
                while (result < 0 && System.Runtime.InteropServices.Marshal.GetLastPInvokeError() == Interop.EINTR);
            }
            catch (EntryPointNotFoundException)
            {
                // A C library older than preadv2 (glibc 2.26, musl 1.1.17): the caller reads the usual way.
                s_noPReadV2 = true;
                return false;
            }

            read = (int)Math.Max(result, 0);
            return read == destination.Length;
        }
    }

    internal static unsafe int ReadAt(SafeFileHandle handle, string path, Span<byte> destination, long offset)
    {
        if (OperatingSystem.IsLinux())
        {
            // pread straight away: RandomAccess first asks the descriptor whether it can seek, a system call per file.
            nint read;
            int errno;
            fixed (byte* buffer = destination)
            {
                do
                {
                    read = Interop.PRead(handle, buffer, destination.Length, offset);
                    errno = read < 0 ? System.Runtime.InteropServices.Marshal.GetLastPInvokeError() : 0;
                }
                while (errno == Interop.EINTR);
            }

            // The errno is the exception's HResult, as .NET gives it on Unix: callers tell refusals (EINVAL) apart by it.
            return read >= 0
                ? (int)read
                : throw new IOException(
                    $"Could not read '{path}' at offset {offset:N0}: {System.Runtime.InteropServices.Marshal.GetPInvokeErrorMessage(errno)}", errno);
        }

        try
        {
            return RandomAccess.Read(handle, destination, offset);
        }
        catch (IOException ex)
        {
            // RandomAccess reports the OS error without the path; the caller needs to know which file failed.
            throw new IOException($"Could not read '{path}' at offset {offset:N0}: {ex.Message}", ex);
        }
    }
}
